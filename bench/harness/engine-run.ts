import pino from 'pino';
import { EmbeddedEngine } from '../../engine/embedded/engine.ts';
import { createEngineMetrics } from '../../engine/metrics/index.ts';
import { compileConfig } from '../../engine/runtime/compile.ts';
import { MongoStore } from '../../engine/store/index.ts';
import type { ConsumedMessage } from '../../operators/broker/types.ts';
import { type MongoFixture, startMongo } from '../../test/support/mongo.ts';
import type { BenchEvent, Workload } from '../workloads/index.ts';
import { benchConfig } from './config.ts';
import { feed } from './feed.ts';
import { inputLatencies, type OutputStamp } from './latency.ts';
import { type Load, measureLoad } from './load.ts';

export interface EngineRunOptions {
  readonly workload: Workload;
  readonly store: 'memory' | 'mongo';
  readonly setup: Iterable<BenchEvent>;
  /** The measured events; an array, or a lazy iterable for very long runs (no latency then). */
  readonly stream: Iterable<BenchEvent>;
  readonly partitions: number;
  readonly rate?: number;
  /** Batches read ahead per input consumer (the runtime default otherwise). */
  readonly maxInFlight?: number;
}

export interface EngineRunFigures {
  readonly events: number;
  readonly seconds: number;
  readonly load: Load;
  readonly outputs: number;
  /** Bytes of the output values (the aggregates' JSON and their envelope). */
  readonly outputBytes: number;
  readonly latency: ReturnType<typeof inputLatencies> | null;
  readonly roundTrips: number;
  readonly internalConsumed: number;
  readonly recomputes: number;
  readonly childUpdates: number;
  readonly standIn: boolean;
}

/**
 * Runs the engine as embedded mode runs it (`EmbeddedEngine`: in-process broker keeping only
 * uncommitted messages, outputs read while the engine runs), on a MemoryStore or a MongoStore:
 * the unmeasured setup first (fed, then drained), then the measured stream. Figures are deltas
 * over the measured part; it ends with the last output the broker appended.
 */
export async function runEngine(options: EngineRunOptions): Promise<EngineRunFigures> {
  const config = benchConfig(options.workload.graph);
  const metrics = createEngineMetrics({ defaultMetrics: false });
  const mongo = options.store === 'mongo' ? await startMongo() : null;
  const lazy = !Array.isArray(options.stream);
  const stamps: OutputStamp[] = [];
  let outputs = 0;
  let outputBytes = 0;
  let lastOutputAt = 0;
  let measuring = false;
  const embedded = await EmbeddedEngine.start({
    config,
    logger: pino({ level: 'silent' }),
    metrics,
    partitions: options.partitions,
    ...(mongo ? { store: mongoStore(config, mongo) } : {}),
    ...(options.maxInFlight ? { maxInFlight: options.maxInFlight } : {}),
    onOutput: (message) => {
      if (!measuring) return;
      outputs++;
      outputBytes += message.value?.length ?? 0;
      lastOutputAt = Math.max(lastOutputAt, message.timestamp ?? 0);
      if (!lazy) {
        const stamp = stampOf(message);
        if (stamp) stamps.push(stamp);
      }
    },
  });
  try {
    const producer = embedded.broker.producer();
    const capacity = () => embedded.inputCapacity();
    await feed(
      producer,
      map(options.setup, (e) => e.record),
      { capacity },
    );
    await embedded.drain();

    const before = await counters(embedded, metrics);
    const events: BenchEvent[] = lazy ? [] : (options.stream as BenchEvent[]);
    const times: number[] = [];
    let childUpdates = 0;
    const records = map(options.stream, (e) => {
      if (e.record.topic !== options.workload.graph.nodes[0]) childUpdates++;
      return e.record;
    });
    measuring = true;
    const started = Date.now();
    const loadSince = measureLoad();
    const fed = await feed(producer, records, {
      capacity,
      ...(options.rate ? { rate: options.rate } : {}),
      ...(lazy ? {} : { onAppend: (_: number, time: number) => times.push(time) }),
    });
    await embedded.drain();
    const load = loadSince();
    const after = await counters(embedded, metrics);
    return {
      events: fed,
      seconds: (Math.max(started + 1, lastOutputAt) - started) / 1000,
      load,
      outputs,
      outputBytes,
      latency: lazy
        ? null
        : inputLatencies(
            times,
            events.map((e) => e.head),
            stamps,
          ),
      roundTrips: after.roundTrips - before.roundTrips,
      internalConsumed: after.internalConsumed - before.internalConsumed,
      recomputes: after.recomputes - before.recomputes,
      childUpdates,
      standIn: mongo?.standIn ?? false,
    };
  } finally {
    await embedded.stop();
    await mongo?.stop();
  }
}

function mongoStore(config: ReturnType<typeof benchConfig>, mongo: MongoFixture): MongoStore {
  return new MongoStore({ ...compileConfig(config).layout, url: mongo.url, database: mongo.database });
}

function* map<T, U>(items: Iterable<T>, f: (item: T) => U): Iterable<U> {
  for (const item of items) yield f(item);
}

async function counters(embedded: EmbeddedEngine, metrics: ReturnType<typeof createEngineMetrics>) {
  return {
    roundTrips: embedded.store.counters.roundTrips,
    internalConsumed: await total(metrics.internalIn),
    recomputes: await total(metrics.internalOut),
  };
}

export async function total(metric: { get(): Promise<{ values: { value: number }[] }> }): Promise<number> {
  return (await metric.get()).values.reduce((sum, v) => sum + v.value, 0);
}

/** The head id of an output (the workloads' keys are `{"id": n}`) and when it was appended. */
export function stampOf(message: ConsumedMessage): OutputStamp | null {
  if (message.value === null || message.key === null) return null;
  return {
    head: (JSON.parse(message.key.toString('utf8')) as { id: number }).id,
    time: message.timestamp ?? 0,
  };
}
