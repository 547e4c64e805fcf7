import pino from 'pino';
import { createEngineMetrics } from '../../engine/metrics/index.ts';
import { compileConfig } from '../../engine/runtime/compile.ts';
import type { RuntimeContext } from '../../engine/runtime/context.ts';
import { storeInputBatch } from '../../engine/runtime/process-input.ts';
import { recomputeHeads } from '../../engine/runtime/recompute.ts';
import { MemoryStore } from '../../engine/store/index.ts';
import { MemoryBroker } from '../../operators/broker/memory/index.ts';
import { nextOffsets } from '../../operators/broker/next-offsets.ts';
import type { BrokerProducer } from '../../operators/broker/types.ts';
import type { BenchEvent, Workload } from '../workloads/index.ts';
import { benchConfig } from './config.ts';
import { feed } from './feed.ts';
import { type Load, measureLoad } from './load.ts';

const GROUP = 'naive';
const OUTPUT_GROUP = 'naive-output';

export interface NaiveRunFigures {
  readonly events: number;
  readonly seconds: number;
  readonly load: Load;
  readonly outputs: number;
  readonly outputBytes: number;
  readonly roundTrips: number;
  readonly recomputes: number;
  readonly childUpdates: number;
}

/**
 * The naive peer: what a team writes without this engine. One consumer reads every input topic
 * and handles each event on its own as it arrives: store it, find the heads it affects, recompute
 * and emit them at once. No internal-updates topic, no compression window, no batching of store
 * work across events; offsets are committed per consumed batch once its events are handled. The
 * store, the upward walk, the aggregate renderer and the output messages are the engine's own
 * modules (`storeInputBatch`, `recomputeHeads`), on the MemoryStore and in-process broker, with
 * the same configuration, so the ratio to it measures the engine's design, not its parts.
 */
export async function runNaive(options: {
  readonly workload: Workload;
  readonly setup: Iterable<BenchEvent>;
  readonly stream: Iterable<BenchEvent>;
  readonly partitions: number;
}): Promise<NaiveRunFigures> {
  const config = benchConfig(options.workload.graph);
  const compiled = compileConfig(config);
  const inputTopics = [...compiled.topics.values()];
  const nodeOf = new Map([...compiled.topics].map(([node, topic]) => [topic, node]));
  const outputTopic = config.producer.config.topic;
  const broker = new MemoryBroker({
    topics: Object.fromEntries([...inputTopics, outputTopic].map((t) => [t, options.partitions])),
    retention: 'committed',
  });
  const store = new MemoryStore(compiled.layout);
  const metrics = createEngineMetrics({ defaultMetrics: false });
  const producer = broker.producer();
  const noInternalTopic: BrokerProducer = {
    connect: async () => {},
    produce: () => Promise.reject(new Error('the naive peer has no internal-updates topic')),
    flush: async () => {},
    disconnect: async () => {},
  };
  const ctx: RuntimeContext = {
    store,
    topology: compiled.topology,
    mode: config.processor.mode,
    outputTopic,
    internalTopic: '',
    internalRoute: { topic: '', partitions: 1, partitioner: () => 0 },
    producer,
    internalProducer: noInternalTopic,
    deadLetterTopics: new Map(),
    metrics,
    logger: pino({ level: 'silent' }),
  };

  let stopping = false;
  const consumer = broker.consumer({ groupId: GROUP });
  consumer.subscribe(inputTopics);
  const handling = (async () => {
    while (!stopping) {
      const batch = await consumer.consume(1000, 20);
      for (const message of batch) {
        const node = nodeOf.get(message.topic) as string;
        await recomputeHeads(ctx, await storeInputBatch(ctx, node, [message]));
      }
      await consumer.commit(nextOffsets(batch));
    }
  })();

  // The outputs are read and committed, as embedded mode reads the engine's.
  const reader = broker.consumer({ groupId: OUTPUT_GROUP });
  reader.subscribe([outputTopic]);
  let outputs = 0;
  let outputBytes = 0;
  let lastOutput = 0;
  let measuring = false;
  const reading = (async () => {
    while (!stopping) {
      const batch = await reader.consume(10_000, 20);
      for (const message of measuring ? batch : []) {
        outputs++;
        outputBytes += message.value?.length ?? 0;
        lastOutput = Math.max(lastOutput, message.timestamp ?? 0);
      }
      await reader.commit(nextOffsets(batch));
    }
  })();
  /** Every input handled, then every output it caused read: nothing uncommitted in either group. */
  const drained = async () => {
    await broker.caughtUp(GROUP);
    await broker.caughtUp(OUTPUT_GROUP);
  };

  await feed(
    producer,
    [...options.setup].map((e) => e.record),
  );
  await drained();
  const before = { roundTrips: store.counters.roundTrips, recomputes: await total(metrics.recomputes) };
  let childUpdates = 0;
  const records = [...options.stream].map((e) => {
    if (e.record.topic !== options.workload.graph.nodes[0]) childUpdates++;
    return e.record;
  });
  const started = Date.now();
  const loadSince = measureLoad();
  measuring = true;
  const events = await feed(producer, records);
  await drained();
  const load = loadSince();
  stopping = true;
  await Promise.all([handling, reading]);
  return {
    events,
    seconds: Math.max(1, lastOutput - started) / 1000,
    load,
    outputs,
    outputBytes,
    roundTrips: store.counters.roundTrips - before.roundTrips,
    recomputes: (await total(metrics.recomputes)) - before.recomputes,
    childUpdates,
  };
}

async function total(metric: { get(): Promise<{ values: { value: number }[] }> }): Promise<number> {
  return (await metric.get()).values.reduce((sum, v) => sum + v.value, 0);
}
