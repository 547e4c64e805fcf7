import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { MemoryBroker } from '../../engine/broker/memory/index.ts';
import type { ConsumedMessage } from '../../engine/broker/types.ts';
import type { Config } from '../../engine/config/index.ts';
import { EmbeddedEngine } from '../../engine/embedded/engine.ts';
import { createEngineMetrics, type EngineMetrics } from '../../engine/metrics/index.ts';
import { compileConfig } from '../../engine/runtime/compile.ts';
import { type RunningEngine, startEngine } from '../../engine/runtime/engine.ts';
import { MongoStore, type Store } from '../../engine/store/index.ts';
import { type MongoFixture, startMongo } from '../../test/support/mongo.ts';
import type { BenchEvent, Workload } from '../workloads/index.ts';
import { benchConfig } from './config.ts';
import { feed } from './feed.ts';
import { inputLatencies, type OutputStamp } from './latency.ts';

export interface EngineRunOptions {
  readonly workload: Workload;
  readonly store: 'memory' | 'mongo';
  readonly setup: Iterable<BenchEvent>;
  /** The measured events; an array, or a lazy iterable for very long runs (no latency then). */
  readonly stream: Iterable<BenchEvent>;
  readonly partitions: number;
  readonly rate?: number;
  /** Batches read ahead per consumer (engine default 2). */
  readonly maxInFlight?: number;
}

export interface EngineRunFigures {
  readonly events: number;
  readonly seconds: number;
  readonly outputs: number;
  readonly latency: ReturnType<typeof inputLatencies> | null;
  readonly roundTrips: number;
  readonly internalConsumed: number;
  readonly recomputes: number;
  readonly childUpdates: number;
  readonly standIn: boolean;
}

const none = {};

/**
 * Runs the real engine (`startEngine`) on the in-process broker and a MemoryStore or MongoStore:
 * the unmeasured setup first (fed, then drained), then the measured stream. Figures are deltas
 * over the measured part; its end is the last output or internal update the broker appended.
 */
export async function runEngine(options: EngineRunOptions): Promise<EngineRunFigures> {
  const config = benchConfig(options.workload.graph);
  const outputTopic = config.producer.config.topic;
  const internalTopic = config.processor.internalUpdates.config.topic;
  const metrics = createEngineMetrics({ defaultMetrics: false });
  const mongo = options.store === 'mongo' ? await startMongo() : null;
  const { engine, broker, store } = mongo
    ? await startOnMongo(config, options, metrics, mongo)
    : await startEmbedded(config, options, metrics);
  try {
    while (!(await engine.ready())) await sleep(5);
    const producer = broker.producer();
    await feed(
      producer,
      map(options.setup, (e) => e.record),
    );
    await settle(engine);

    const before = await snapshot(broker, [outputTopic, internalTopic], store, metrics);
    const lazy = !Array.isArray(options.stream);
    const events: BenchEvent[] = lazy ? [] : (options.stream as BenchEvent[]);
    const times: number[] = [];
    let childUpdates = 0;
    const records = map(options.stream, (e) => {
      if (e.record.topic !== options.workload.graph.nodes[0]) childUpdates++;
      return e.record;
    });
    const started = Date.now();
    const fed = await feed(producer, records, {
      ...(options.rate ? { rate: options.rate } : {}),
      ...(lazy ? {} : { onAppend: (_: number, time: number) => times.push(time) }),
    });
    await settle(engine);
    const after = await snapshot(broker, [outputTopic, internalTopic], store, metrics);

    const outputs = tail(broker, outputTopic, before.offsets.get(outputTopic) ?? []);
    const end = Math.max(
      started + 1,
      ...[outputTopic, internalTopic].map((t) => lastTime(tail(broker, t, before.offsets.get(t) ?? []))),
    );
    const latency = lazy
      ? null
      : inputLatencies(
          times,
          events.map((e) => e.head),
          stamps(outputs),
        );
    return {
      events: fed,
      seconds: (end - started) / 1000,
      outputs: outputs.length,
      latency,
      roundTrips: after.roundTrips - before.roundTrips,
      internalConsumed: after.internalConsumed - before.internalConsumed,
      recomputes: after.recomputes - before.recomputes,
      childUpdates,
      standIn: mongo?.standIn ?? false,
    };
  } finally {
    await engine.stop();
    await mongo?.stop();
  }
}

/** Embedded mode as users run it: `EmbeddedEngine` (in-process broker, MemoryStore). */
async function startEmbedded(config: Config, options: EngineRunOptions, metrics: EngineMetrics) {
  const embedded = await EmbeddedEngine.start({
    config,
    logger: pino({ level: 'silent' }),
    metrics,
    partitions: options.partitions,
    ...(options.maxInFlight ? { maxInFlight: options.maxInFlight } : {}),
  });
  return { engine: embedded.engine, broker: embedded.broker, store: embedded.store as Store };
}

/** The runtime with the engine's default batching on the in-process broker and a MongoStore. */
async function startOnMongo(
  config: Config,
  options: EngineRunOptions,
  metrics: EngineMetrics,
  mongo: MongoFixture,
) {
  const compiled = compileConfig(config);
  const topics = [
    ...compiled.topics.values(),
    config.processor.internalUpdates.config.topic,
    config.producer.config.topic,
  ];
  const broker = new MemoryBroker({ topics: Object.fromEntries(topics.map((t) => [t, options.partitions])) });
  const store = new MongoStore({ ...compiled.layout, url: mongo.url, database: mongo.database });
  const engine = await startEngine({
    compiled,
    broker,
    store,
    logger: pino({ level: 'silent' }),
    clients: { consumer: () => none, producer: none, internalConsumer: none, internalProducer: none },
    metrics,
    ...(options.maxInFlight ? { maxInFlight: options.maxInFlight } : {}),
  });
  return { engine, broker, store: store as Store };
}

function* map<T, U>(items: Iterable<T>, f: (item: T) => U): Iterable<U> {
  for (const item of items) yield f(item);
}

/** Waits until every consumer committed everything (twice in a row, as embedded `drain`). */
async function settle(engine: RunningEngine): Promise<void> {
  for (let quiet = 0; quiet < 2; ) {
    await sleep(10);
    quiet = (await engine.idle()) ? quiet + 1 : 0;
  }
}

async function snapshot(
  broker: MemoryBroker,
  topics: readonly string[],
  store: Store,
  metrics: EngineMetrics,
) {
  return {
    offsets: new Map(topics.map((t) => [t, broker.messages(t).map((p) => p.length)])),
    roundTrips: store.counters.roundTrips,
    internalConsumed: await total(metrics.internalIn),
    recomputes: await total(metrics.internalOut),
  };
}

async function total(metric: { get(): Promise<{ values: { value: number }[] }> }): Promise<number> {
  return (await metric.get()).values.reduce((sum, v) => sum + v.value, 0);
}

function tail(broker: MemoryBroker, topic: string, from: readonly number[]): ConsumedMessage[] {
  return broker.messages(topic).flatMap((messages, p) => messages.slice(from[p] ?? 0));
}

function lastTime(messages: readonly ConsumedMessage[]): number {
  let last = 0;
  for (const m of messages) last = Math.max(last, m.timestamp ?? 0);
  return last;
}

function* stamps(outputs: readonly ConsumedMessage[]): Iterable<OutputStamp> {
  for (const m of outputs) {
    if (m.value === null || m.key === null) continue;
    yield { head: (JSON.parse(m.key.toString('utf8')) as { id: number }).id, time: m.timestamp ?? 0 };
  }
}
