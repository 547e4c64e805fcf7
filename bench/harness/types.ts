import type { WorkloadId } from '../workloads/index.ts';

/** `naive`: the naive peer (`harness/naive-run.ts`), the engine's modules without its design. */
export type Target = 'ceiling' | 'naive' | 'memory' | 'mongo';

/** One measured run, executed in a process of its own (peak RSS is that process's). */
export interface RunSpec {
  readonly workload: WorkloadId;
  readonly target: Target;
  /** Measured input events. */
  readonly events: number;
  readonly seed: number;
  /** W3: customers in the population. */
  readonly scale: number;
  /** Paced feeding in events/s (latency at a given load); absent: as fast as possible. */
  readonly rate?: number;
  /** Generate events while feeding instead of before (million-event RSS runs). */
  readonly lazy?: boolean;
  readonly partitions: number;
  /**
   * Ceiling runs: transforms chained from input to output (absent: 1, the ceiling; 2: the hops
   * `engine.md` §6 prescribes, input -> internal updates -> output, with no store and no graph).
   */
  readonly hops?: number;
  /** Batches read ahead per consumer; absent: the engine's default. */
  readonly maxInFlight?: number;
}

export interface RunResult {
  readonly spec: RunSpec;
  readonly seconds: number;
  /**
   * CPU time (user + system, this process) per measured event, in microseconds, from the first
   * append until drained: the cost for capacity planning. In saturated runs it exceeds wall time
   * per event, V8's GC threads using the second core. A MongoStore run leaves out the database's
   * own CPU (another process).
   */
  readonly cpuMicrosPerEvent: number;
  /**
   * Share of the run's wall time the main thread was busy, 0 to 1 (the engine runs there).
   * Near 1 the run is saturated and latency is mostly queueing.
   */
  readonly loopBusy: number;
  readonly inputPerSecond: number;
  readonly outputMessages: number;
  readonly outputPerSecond: number;
  /**
   * Output value bytes per input event: the work the run's outputs imply. The ceiling echoes each
   * event; the engine emits whole aggregates, fewer as compression grows.
   */
  readonly outputBytesPerEvent: number;
  readonly latencyMs: {
    p50: number | null;
    p99: number | null;
    max: number | null;
    samples: number;
    unanswered: number;
  };
  /** Store requests per measured input event (MemoryStore: calls). Null for the ceiling. */
  readonly roundTripsPerEvent: number | null;
  /** Internal updates consumed / left after compression (head recomputes). */
  readonly internalUpdates: { consumed: number; recomputes: number; ratio: number | null } | null;
  /** Child updates fed (W3: the measured stream) per head recompute. */
  readonly childUpdatesPerRecompute: number | null;
  readonly peakRssMb: number;
  /** The stand-in is not MongoDB: its speed says nothing, only its round-trip counts do. */
  readonly standIn?: boolean;
}
