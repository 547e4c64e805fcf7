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
import { librdkafkaPartitioner } from '../key-partitioner.ts';
import type { Broker, ClientProperties } from '../types.ts';
import { connectClient } from './connect.ts';
import { KafkaBrokerConsumer } from './consumer.ts';
import { KafkaBrokerProducer } from './producer.ts';
import { bootstrapServers } from './properties.ts';

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
}

export function createKafkaBroker(options: KafkaBrokerOptions): Broker {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const { logger } = options;
  return {
    consumer: ({ groupId, properties }) =>
      new KafkaBrokerConsumer({
        groupId,
        properties: { ...options.properties, ...properties },
        timeoutMs,
        logger,
      }),
    producer: (producerOptions) =>
      new KafkaBrokerProducer({
        properties: { ...options.properties, ...producerOptions?.properties },
        timeoutMs,
        logger,
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
