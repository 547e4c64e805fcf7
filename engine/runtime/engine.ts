import type { Logger } from 'pino';
import { defaultIfEmpty, lastValueFrom, type Observable, Subject } from 'rxjs';
import type {
  Broker,
  BrokerConsumer,
  BrokerProducer,
  ClientProperties,
  RebalanceEvent,
} from '../../operators/broker/types.ts';
import type { InternalUpdatesRoute } from '../internal-updates/route.ts';
import { createEngineMetrics, type EngineMetrics } from '../metrics/index.ts';
import type { Store } from '../store/types.ts';
import type { CompiledConfig } from './compile.ts';
import type { RuntimeContext } from './context.ts';
import { inputPipeline, internalUpdatesPipeline } from './pipelines.ts';

/** Client properties per part of the configuration (connections merged with the part's own). */
export interface EngineClients {
  readonly consumer: (node: string) => ClientProperties;
  readonly producer: ClientProperties;
  readonly internalConsumer: ClientProperties;
  readonly internalProducer: ClientProperties;
}

export interface EngineOptions {
  readonly compiled: CompiledConfig;
  readonly broker: Broker;
  readonly store: Store;
  readonly logger: Logger;
  readonly clients: EngineClients;
  readonly metrics?: EngineMetrics;
  readonly deadLetterTopics?: ReadonlyMap<string, string>;
  /** Largest input batch (default 1000) and batches read ahead per consumer (default 2). */
  readonly maxBatchSize?: number;
  readonly maxInFlight?: number;
  /** Topics to check at startup (default: every topic of the config; Kafka mode passes those of
   *  the broker's own connection). */
  readonly requiredTopics?: readonly string[];
  /** Per node, pausing its consumer (control plane). Absent: always running. */
  readonly paused?: (node: string) => Observable<boolean>;
}

export interface RunningEngine {
  readonly compiled: CompiledConfig;
  readonly context: RuntimeContext;
  readonly consumers: ReadonlyMap<string, BrokerConsumer>;
  /** Settles when every pipeline ended: resolves after `stop()`, rejects on a fatal error. */
  readonly done: Promise<void>;
  /** Every consumer has partitions assigned and the store answers (`engine.md` §9). */
  ready(): Promise<boolean>;
  /** Every consumer assigned, nothing left to consume and every consumed offset committed. */
  idle(): Promise<boolean>;
  /** Graceful: stop reading, finish and commit in-flight batches, close clients and store. */
  stop(): Promise<void>;
}

/** Consumer group of a node unless the user set `group.id` among its properties. */
export function groupIdOf(configId: string, part: string, properties: ClientProperties): string {
  const configured = properties['group.id'];
  return typeof configured === 'string' && configured !== '' ? configured : `streamfold.${configId}.${part}`;
}

export const INTERNAL_PART = 'internal-updates';

/**
 * Read-ahead of the internal-updates consumer, in batches. The compressor holds each batch until
 * the windows of its keys close, so this must cover a whole window of traffic or the source
 * pauses mid-window and starves compression. A held batch costs only its acknowledgement (the
 * updates are merged into the compressor's per-key windows), so the bound can be generous.
 */
const INTERNAL_MAX_IN_FLIGHT = 1024;

/** How often `streamfold_consumer_lag` is refreshed from the consumers. */
const LAG_REFRESH_MS = 5_000;

/**
 * Starts the engine of a compiled configuration on a broker and a store: one pipeline per
 * consumer node and one for internal updates (`engine.md` §6). Fails fast when a topic is
 * missing or the store or broker cannot be reached.
 */
export async function startEngine(options: EngineOptions): Promise<RunningEngine> {
  const { compiled, broker, store, logger, clients } = options;
  const { config } = compiled;
  const metrics = options.metrics ?? createEngineMetrics();
  const internal = config.processor.internalUpdates.config;
  const outputTopic = config.producer.config.topic;

  await assertTopicsExist(
    broker,
    options.requiredTopics ?? [
      ...compiled.topics.values(),
      internal.topic,
      outputTopic,
      ...(options.deadLetterTopics?.values() ?? []),
    ],
  );
  const internalRoute = await internalUpdatesRoute(broker, internal.topic, clients.internalProducer);
  await store.open();

  const producer = broker.producer({ properties: clients.producer });
  const internalProducer = broker.producer({ properties: clients.internalProducer });

  const context: RuntimeContext = {
    store,
    topology: compiled.topology,
    mode: config.processor.mode,
    outputTopic,
    internalTopic: internal.topic,
    internalRoute,
    producer,
    internalProducer,
    deadLetterTopics: options.deadLetterTopics ?? new Map(),
    metrics,
    logger,
  };

  const consumers = new Map<string, BrokerConsumer>();
  for (const node of compiled.topics.keys()) {
    const properties = clients.consumer(node);
    consumers.set(node, broker.consumer({ groupId: groupIdOf(config.id, node, properties), properties }));
  }
  const internalConsumer = broker.consumer({
    groupId: groupIdOf(config.id, INTERNAL_PART, clients.internalConsumer),
    properties: clients.internalConsumer,
  });
  const clientsToClose = [producer, internalProducer, ...consumers.values(), internalConsumer];
  try {
    await Promise.all(clientsToClose.map((c) => c.connect()));
  } catch (error) {
    // Fail fast, but leave nothing open behind: open clients would keep the process alive.
    await Promise.allSettled(clientsToClose.map((c) => c.disconnect()));
    await store.close();
    throw error;
  }

  // A consumer is ready once its group gave it an assignment, possibly empty (more instances
  // than partitions is a valid deployment). Losing every partition (an eager rebalance) makes it
  // not ready until the next assignment; a partial, cooperative revocation does not.
  const owned = new Map<string, Set<string>>();
  const eventsOf = (part: string) => ({
    next: (event: RebalanceEvent) => {
      const partitions = owned.get(part) ?? new Set<string>();
      for (const { topic, partition } of event.partitions) {
        if (event.kind === 'assign') partitions.add(`${topic}/${partition}`);
        else partitions.delete(`${topic}/${partition}`);
      }
      if (event.kind === 'revoke' && partitions.size === 0) owned.delete(part);
      else owned.set(part, partitions);
    },
  });
  const stop = new Subject<void>();
  const batching = {
    maxBatchSize: options.maxBatchSize ?? 1000,
    maxInFlight: options.maxInFlight ?? 2,
    stop,
  };
  const pipelines = [
    ...[...consumers].map(([node, consumer]) =>
      inputPipeline(context, node, compiled.topics.get(node) as string, consumer, {
        ...batching,
        commitIntervalMs: config.consumers.config[node]?.commitIntervalMs ?? 500,
        events: eventsOf(node),
        ...(options.paused ? { paused: options.paused(node) } : {}),
      }),
    ),
    internalUpdatesPipeline(context, internalConsumer, internal.compressionWindowMs, {
      ...batching,
      maxInFlight: Math.max(batching.maxInFlight, INTERNAL_MAX_IN_FLIGHT),
      commitIntervalMs: internal.consumer.commitIntervalMs,
      events: eventsOf(INTERNAL_PART),
    }),
  ];
  const ended = pipelines.map((p) =>
    lastValueFrom(p.pipe(defaultIfEmpty(null))).catch((error: unknown) => {
      // A fatal error in one pipeline drains the others, so nothing keeps running half-broken.
      logger.error({ err: error }, 'pipeline failed; stopping the engine');
      stop.next();
      throw error;
    }),
  );
  // Settles only when every pipeline has ended (the others finish and commit their batches).
  const settled = Promise.allSettled(ended);
  const done = settled.then((results) => {
    const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failure) throw failure.reason;
  });
  done.catch(() => undefined);

  const allConsumers = [...consumers.values(), internalConsumer];
  const parts = new Map<BrokerConsumer, string>([
    ...[...consumers].map(([node, c]) => [c, node] as const),
    [internalConsumer, INTERNAL_PART],
  ]);
  const updateLag = async () => {
    for (const [consumer, pipeline] of parts) {
      for (const p of await consumer.lag().catch(() => [])) {
        metrics.lag.set({ pipeline, topic: p.topic, partition: String(p.partition) }, p.lag);
      }
    }
  };
  const lagTimer = setInterval(() => void updateLag(), LAG_REFRESH_MS).unref();
  let stopping: Promise<void> | undefined;
  const close = async () => {
    clearInterval(lagTimer);
    stop.next();
    await settled;
    await Promise.allSettled(allConsumers.map((c) => c.disconnect()));
    await Promise.allSettled([producer, internalProducer].map((p) => flushAndClose(p)));
    await store.close();
  };

  return {
    compiled,
    context,
    consumers,
    done,
    async ready() {
      if (stopping || owned.size < allConsumers.length) return false;
      return store.ping().then(
        () => true,
        () => false,
      );
    },
    async idle() {
      // Before its group assigned it partitions a consumer reports no lag at all: not idle.
      if (owned.size < allConsumers.length) return false;
      // A lag query that fails (a slow broker) proves nothing: not idle yet, ask again later.
      const lags = await Promise.all(allConsumers.map((c) => c.lag())).catch(() => null);
      return lags?.every((partitions) => partitions.every((p) => p.lag === 0)) ?? false;
    },
    stop() {
      stopping ??= close();
      return stopping;
    },
  };
}

async function flushAndClose(producer: BrokerProducer): Promise<void> {
  await producer.flush(10_000);
  await producer.disconnect();
}

/**
 * The internal-updates topic's partition count, asked of the internal producer's cluster, and
 * that producer's key partitioner: what groups internal updates into one message per partition.
 * The count is read once: adding partitions to that topic moves keys to other partitions (as
 * for any keyed Kafka topic), so it is done with every instance stopped (engine/README.md, Scaling out).
 */
async function internalUpdatesRoute(
  broker: Broker,
  topic: string,
  properties: ClientProperties,
): Promise<InternalUpdatesRoute> {
  const partitions = (await broker.topics(properties)).get(topic);
  if (partitions === undefined) {
    throw new Error(
      `topic(s) missing on the broker: ${topic} (create it, or check processor.internalUpdates.config.topic)`,
    );
  }
  return { topic, partitions, partitioner: broker.keyPartitioner(properties) };
}

async function assertTopicsExist(broker: Broker, topics: readonly string[]): Promise<void> {
  const known = await broker.topics();
  const missing = [...new Set(topics)].filter((t) => !known.has(t));
  if (missing.length > 0) {
    throw new Error(
      `topic(s) missing on the broker: ${missing.join(', ')} (create them, or check the configuration)`,
    );
  }
}
