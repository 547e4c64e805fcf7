import { pino } from 'pino';
import { createEngineMetrics } from '../../engine/metrics/index.ts';
import type { CompiledConfig } from '../../engine/runtime/compile.ts';
import type { RuntimeContext } from '../../engine/runtime/context.ts';
import type { Store } from '../../engine/store/types.ts';
import { type KeyPartitioner, partitionForKey } from '../../operators/broker/key-partitioner.ts';
import type { BrokerProducer } from '../../operators/broker/types.ts';

/**
 * One engine instance's batch handlers over a shared store and broker, which a SIGKILL can stop
 * at any side effect: the `killAt`-th store write or produce takes place (MongoDB or the broker
 * acknowledged it) but the instance never learns it, and nothing it does afterwards happens or
 * returns. Its pending batch promises never settle, as in a process that is gone.
 */
export interface CrashableInstance {
  readonly ctx: RuntimeContext;
  /** Resolves when the instance was killed. */
  readonly killed: Promise<void>;
  /** Side effects that took place so far (store writes and produced records). */
  effects(): number;
}

const WRITES = new Set<string | symbol>(['write', 'writeEmitted']);
const never = new Promise<never>(() => {});

/** The shared broker's internal-updates topic: its partition count and key partitioner. */
export interface SharedRoute {
  readonly partitions: number;
  readonly partitioner: KeyPartitioner;
}

export function crashableInstance(
  compiled: CompiledConfig,
  shared: { store: Store; producer: BrokerProducer; route?: SharedRoute },
  killAt = Number.POSITIVE_INFINITY,
): CrashableInstance {
  const route = shared.route ?? { partitions: 1, partitioner: partitionForKey };
  let effects = 0;
  let dead = false;
  let kill = () => {};
  const killed = new Promise<void>((resolve) => {
    kill = resolve;
  });
  /** Runs one side effect; the one numbered `killAt` is the last this instance sees through. */
  const effect = async <T>(run: () => Promise<T>): Promise<T> => {
    if (dead) return never;
    const result = await run();
    effects++;
    if (effects >= killAt) {
      dead = true;
      kill();
    }
    return dead ? never : result;
  };
  const store = new Proxy(shared.store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      if (WRITES.has(property)) return (...args: unknown[]) => effect(() => value.apply(target, args));
      return async (...args: unknown[]) => (dead ? never : value.apply(target, args));
    },
  });
  const producer: BrokerProducer = {
    connect: () => shared.producer.connect(),
    produce: (record) => effect(() => shared.producer.produce(record)),
    flush: (timeoutMs) => shared.producer.flush(timeoutMs),
    disconnect: () => shared.producer.disconnect(),
  };
  const { config, topology } = compiled;
  const ctx: RuntimeContext = {
    store,
    topology,
    mode: config.processor.mode,
    outputTopic: config.producer.config.topic,
    internalTopic: config.processor.internalUpdates.config.topic,
    internalRoute: { topic: config.processor.internalUpdates.config.topic, ...route },
    producer,
    internalProducer: producer,
    deadLetterTopics: new Map(),
    metrics: createEngineMetrics({ defaultMetrics: false }),
    logger: pino({ level: 'silent' }),
  };
  return { ctx, killed, effects: () => effects };
}
