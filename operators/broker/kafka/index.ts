/**
 * The Kafka broker on node-rdkafka (librdkafka): consumer-group members in non-flowing mode with
 * explicit commits, and idempotent producers with `acks=all` (see ./properties.ts for why).
 *
 * @example
 *   const broker = createKafkaBroker({ properties: { 'bootstrap.servers': 'localhost:9092' } });
 *   const producer = broker.producer();
 *   await producer.connect();
 *   await producer.produce({ topic: 'orders', key: Buffer.from('1'), value: Buffer.from('{}') });
 */
import Kafka from 'node-rdkafka';
import type { Logger } from 'pino';
import { Counter, type Registry } from 'prom-client';
import { librdkafkaPartitioner } from '../key-partitioner.ts';
import type { Broker, ClientProperties } from '../types.ts';
import { connectClient } from './connect.ts';
import { KafkaBrokerConsumer } from './consumer.ts';
import { KafkaBrokerProducer } from './producer.ts';
import { bootstrapServers } from './properties.ts';
import type { ClientWatchdogOptions } from './watchdog.ts';

export { KafkaBrokerConsumer } from './consumer.ts';
export { KafkaClientError } from './errors.ts';
export { KafkaBrokerProducer } from './producer.ts';
export { FORCED_CONSUMER_PROPERTIES, FORCED_PRODUCER_PROPERTIES } from './properties.ts';

export interface KafkaBrokerOptions {
  /** librdkafka properties shared by every client (`bootstrap.servers`, security, timeouts). */
  readonly properties: ClientProperties;
  readonly logger?: Logger;
  /** Bound for connecting, metadata, lag queries and closing; default 10 s. */
  readonly timeoutMs?: number;
  /**
   * The client watchdog (./watchdog.ts): replaces a client left without any broker
   * (librdkafka#5301). On by default; `false` turns it off.
   */
  readonly watchdog?: Partial<Omit<ClientWatchdogOptions, 'onReplaced'>> | false;
  /** Where `streamfold_kafka_clients_replaced_total` is counted (the service's or engine's registry). */
  readonly registry?: Registry;
}

export const DEFAULT_WATCHDOG = { strandedAfterMs: 10_000, statisticsIntervalMs: 1_000 } as const;

export function createKafkaBroker(options: KafkaBrokerOptions): Broker {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const { logger } = options;
  const replaced = options.registry ? replacedClientsCounter(options.registry) : null;
  const watchdog: ClientWatchdogOptions | false =
    options.watchdog === false
      ? false
      : {
          ...DEFAULT_WATCHDOG,
          ...options.watchdog,
          onReplaced: ({ client }) => replaced?.inc({ client }),
        };
  return {
    consumer: ({ groupId, properties }) =>
      new KafkaBrokerConsumer({
        groupId,
        properties: { ...options.properties, ...properties },
        timeoutMs,
        logger,
        watchdog,
      }),
    producer: (producerOptions) =>
      new KafkaBrokerProducer({
        properties: { ...options.properties, ...producerOptions?.properties },
        timeoutMs,
        logger,
        watchdog,
      }),
    async topics(properties) {
      const merged = { ...options.properties, ...properties };
      const client = new Kafka.Producer(merged, {});
      const metadata = await connectClient(client, 'metadata request', bootstrapServers(merged), timeoutMs);
      client.disconnect(() => {});
      return new Map(
        metadata.topics.filter((t) => !t.name.startsWith('__')).map((t) => [t.name, t.partitions.length]),
      );
    },
    keyPartitioner: (properties) =>
      librdkafkaPartitioner({ ...options.properties, ...properties }.partitioner),
  };
}

const REPLACED_METRIC = 'streamfold_kafka_clients_replaced_total';

/** One counter per registry, however many brokers count into it. */
function replacedClientsCounter(registry: Registry): Counter<'client'> {
  return (
    (registry.getSingleMetric(REPLACED_METRIC) as Counter<'client'> | undefined) ??
    new Counter({
      name: REPLACED_METRIC,
      help: 'Kafka clients replaced by the watchdog after they were left without any broker (librdkafka#5301)',
      labelNames: ['client'],
      registers: [registry],
    })
  );
}
