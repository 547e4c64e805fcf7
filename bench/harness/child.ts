/**
 * One benchmark run in this process: `node --import tsx bench/harness/child.ts '<RunSpec JSON>'`.
 * Prints the RunResult as the last stdout line. The orchestrator (`bench/run.ts`) starts one
 * process per run so that peak RSS (`resourceUsage().maxRSS`) belongs to that run alone; run
 * it directly under `node --cpu-prof` to profile one workload.
 */
import { WORKLOADS } from '../workloads/index.ts';
import { runCeiling } from './ceiling.ts';
import { runEngine } from './engine-run.ts';
import type { Load } from './load.ts';
import { runNaive } from './naive-run.ts';
import { runAsChild } from './run-child.ts';
import type { RunResult, RunSpec } from './types.ts';

export async function runOne(spec: RunSpec): Promise<RunResult> {
  const workload = WORKLOADS[spec.workload];
  const generated = workload.stream(spec.events, spec.seed, spec.scale);
  const stream = spec.lazy ? generated : [...generated];
  if (spec.target === 'ceiling') {
    // The ceiling sees the same measured records (W3's setup is state-building, not I/O).
    const ceiling = await runCeiling(
      [...stream].map((e) => e.record),
      workload.graph.nodes,
      spec.partitions,
      { ...(spec.rate ? { rate: spec.rate } : {}), ...(spec.hops ? { hops: spec.hops } : {}) },
    );
    return {
      spec,
      ...throughputFigures(ceiling),
      latencyMs: { p50: null, p99: null, max: null, samples: 0, unanswered: 0 },
      roundTripsPerEvent: null,
      internalUpdates: null,
      childUpdatesPerRecompute: null,
      peakRssMb: peakRssMb(),
    };
  }
  if (spec.target === 'naive') {
    const naive = await runNaive({
      workload,
      setup: workload.setup(spec.seed, spec.scale),
      stream,
      partitions: spec.partitions,
    });
    return {
      spec,
      ...throughputFigures(naive),
      latencyMs: { p50: null, p99: null, max: null, samples: 0, unanswered: 0 },
      roundTripsPerEvent: naive.roundTrips / naive.events,
      internalUpdates: null,
      childUpdatesPerRecompute: naive.recomputes > 0 ? naive.childUpdates / naive.recomputes : null,
      peakRssMb: peakRssMb(),
    };
  }
  const run = await runEngine({
    workload,
    store: spec.target,
    setup: workload.setup(spec.seed, spec.scale),
    stream,
    partitions: spec.partitions,
    ...(spec.rate ? { rate: spec.rate } : {}),
    ...(spec.maxInFlight ? { maxInFlight: spec.maxInFlight } : {}),
  });
  return {
    spec,
    ...throughputFigures(run),
    latencyMs: run.latency
      ? {
          p50: run.latency.p50,
          p99: run.latency.p99,
          max: run.latency.max,
          samples: run.latency.samples,
          unanswered: run.latency.unanswered,
        }
      : { p50: null, p99: null, max: null, samples: 0, unanswered: 0 },
    roundTripsPerEvent: run.roundTrips / run.events,
    internalUpdates: {
      consumed: run.internalConsumed,
      recomputes: run.recomputes,
      ratio: run.recomputes > 0 ? run.internalConsumed / run.recomputes : null,
    },
    childUpdatesPerRecompute: run.recomputes > 0 ? run.childUpdates / run.recomputes : null,
    peakRssMb: peakRssMb(),
    ...(spec.target === 'mongo' ? { standIn: run.standIn } : {}),
  };
}

/** The figures the ceiling and the engine share, from what either run measured. */
function throughputFigures(run: {
  events: number;
  seconds: number;
  load: Load;
  outputs: number;
  outputBytes: number;
}) {
  return {
    seconds: run.seconds,
    cpuMicrosPerEvent: (run.load.cpuSeconds * 1e6) / run.events,
    loopBusy: run.load.loopBusy,
    inputPerSecond: run.events / run.seconds,
    outputMessages: run.outputs,
    outputPerSecond: run.outputs / run.seconds,
    outputBytesPerEvent: run.outputBytes / run.events,
  };
}

function peakRssMb(): number {
  return process.resourceUsage().maxRSS / 1024;
}

if (import.meta.url === `file://${process.argv[1]}`) runAsChild(runOne);
