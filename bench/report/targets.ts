import type { RunResult } from '../harness/types.ts';

/** The issue's targets for one benchmark run, each with the figure measured and a verdict. */
export interface TargetCheck {
  readonly target: string;
  readonly measured: string;
  /** 'met', 'missed', or 'not run' (the run it needs was skipped or failed). */
  readonly verdict: 'met' | 'missed' | 'not run';
}

export interface TargetInputs {
  /** W1 on MemoryStore at full speed, and its ceiling and 2-hop echo (events/s) from the same run. */
  readonly w1Memory?: RunResult | undefined;
  readonly w1Ceiling?: number | undefined;
  readonly w1TwoHopEcho?: number | undefined;
  /** W4 (no edges: the per-message cost alone) on MemoryStore, and its 2-hop echo. */
  readonly w4Memory?: RunResult | undefined;
  readonly w4TwoHopEcho?: number | undefined;
  /** The naive peer's events/s on W1 and W3 in this run (`harness/naive-run.ts`). */
  readonly w1Naive?: number | undefined;
  readonly w3Naive?: number | undefined;
  /** W1 on MongoStore with the default batching. */
  readonly w1Mongo?: RunResult | undefined;
  /** W1 on MemoryStore paced at half of `w1Memory`'s rate. */
  readonly halfRate?: RunResult | undefined;
  readonly compressionWindowMs: number;
  readonly w3Memory?: RunResult | undefined;
  /** 1,000,000 events on MongoStore: W1, or W3 where the MongoDB is the stand-in (see `bench/run.ts`). */
  readonly million?: RunResult | undefined;
}

const fixed = (value: number, digits: number) =>
  value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** events/s of `run` per events/s of a baseline measured in the same run, or null if either is missing. */
const perBaseline = (run: RunResult | undefined, baseline: number | undefined) =>
  run && baseline ? run.inputPerSecond / baseline : null;

/**
 * Checks the figures against the targets of the engine performance issue, each a ratio to a
 * baseline of the same run: W1 >= 0.6 x and W4 >= 0.8 x the 2-hop echo, W1 >= 3 x and W3 >= 10 x
 * the naive peer; then <= 0.05 store round trips per event on MongoStore, p99 <= window + 100 ms
 * at half the maximum rate, >= 5 child updates per head recompute on W3, and peak RSS <= 250 MB
 * for a million events on MongoStore.
 */
export function checkTargets(inputs: TargetInputs): TargetCheck[] {
  const checks: TargetCheck[] = [];
  const add = (
    target: string,
    value: number | null | undefined,
    format: (v: number) => string,
    ok: (v: number) => boolean,
  ) =>
    checks.push(
      value === null || value === undefined || !Number.isFinite(value)
        ? { target, measured: '-', verdict: 'not run' }
        : { target, measured: format(value), verdict: ok(value) ? 'met' : 'missed' },
    );
  const w1Ceiling = perBaseline(inputs.w1Memory, inputs.w1Ceiling);
  add(
    'W1 throughput >= 0.6 x the 2-hop echo',
    perBaseline(inputs.w1Memory, inputs.w1TwoHopEcho),
    (v) => `${fixed(v, 2)} x${w1Ceiling === null ? '' : ` (${fixed(w1Ceiling, 2)} x ceiling)`}`,
    (v) => v >= 0.6,
  );
  add(
    'W4 throughput >= 0.8 x the 2-hop echo',
    perBaseline(inputs.w4Memory, inputs.w4TwoHopEcho),
    (v) => `${fixed(v, 2)} x`,
    (v) => v >= 0.8,
  );
  add(
    'W1 throughput >= 3 x the naive peer',
    perBaseline(inputs.w1Memory, inputs.w1Naive),
    (v) => `${fixed(v, 1)} x`,
    (v) => v >= 3,
  );
  add(
    'W3 throughput >= 10 x the naive peer',
    perBaseline(inputs.w3Memory, inputs.w3Naive),
    (v) => `${fixed(v, 1)} x`,
    (v) => v >= 10,
  );
  add(
    'W1 MongoStore round trips/event <= 0.05',
    inputs.w1Mongo?.roundTripsPerEvent,
    (v) => fixed(v, 4),
    (v) => v <= 0.05,
  );
  const bound = inputs.compressionWindowMs + 100;
  add(
    `W1 p99 at half rate <= ${bound} ms`,
    inputs.halfRate?.latencyMs.p99,
    (v) => `${fixed(v, 0)} ms`,
    (v) => v <= bound,
  );
  add(
    'W3 child updates per recompute >= 5',
    inputs.w3Memory?.childUpdatesPerRecompute,
    (v) => fixed(v, 1),
    (v) => v >= 5,
  );
  add(
    '1M events on MongoStore: peak RSS <= 250 MB',
    inputs.million?.peakRssMb,
    (v) => `${fixed(v, 0)} MB${millionRun(inputs.million)}`,
    (v) => v <= 250,
  );
  return checks;
}

/** Which run the RSS figure comes from, when it is not W1 on a real MongoDB. */
function millionRun(run: RunResult | undefined): string {
  if (!run) return '';
  const notes = [
    ...(run.spec.workload === 'W1' ? [] : [run.spec.workload]),
    ...(run.standIn ? ['stand-in'] : []),
  ];
  return notes.length > 0 ? ` (${notes.join(', ')})` : '';
}

export function formatTargets(checks: readonly TargetCheck[]): string {
  const width = Math.max(...checks.map((c) => c.target.length));
  return checks.map((c) => `${c.target.padEnd(width)}  ${c.verdict.padEnd(7)}  ${c.measured}`).join('\n');
}

/**
 * What the throughput target is measured against, as one line under the verdicts: the 2-hop
 * echo is the I/O of the hops `engine.md` §6 prescribes (input -> internal updates -> output)
 * with no store, graph, compression or aggregates, so its ratio to the ceiling bounds what the
 * engine could reach if all its own work were free.
 */
export function formatContext(inputs: {
  readonly w1Memory?: RunResult | undefined;
  readonly w1Ceiling?: number | undefined;
  readonly w1TwoHopEcho?: number | undefined;
}): string {
  const { w1Memory, w1Ceiling, w1TwoHopEcho } = inputs;
  if (!w1Ceiling || !w1TwoHopEcho) return 'context: the W1 2-hop echo was not run';
  const engine = w1Memory
    ? `; W1 memory = ${fixed(w1Memory.inputPerSecond / w1TwoHopEcho, 2)} x the 2-hop echo`
    : '';
  return `context: W1 2-hop echo (the engine's hops, nothing else) = ${fixed(w1TwoHopEcho / w1Ceiling, 2)} x ceiling${engine}`;
}
