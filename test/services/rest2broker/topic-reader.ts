/**
 * Reads back what the service produced: a node-rdkafka consumer assigned every partition of the
 * test's topics from offset 0 (no group subscription: a new group starts at the end of a topic
 * with librdkafka's default `auto.offset.reset`, so records produced before it joined would be
 * missed), polled in the background.
 */
import Kafka from 'node-rdkafka';
import type { ConsumedMessage } from '../../../operators/broker/types.ts';
import type { KafkaFixture } from '../../support/kafka.ts';

export interface TopicReader {
  /** Resolves once `topic` holds at least `count` messages; throws after `timeoutMs`. */
  waitFor(topic: string, count: number, timeoutMs?: number): Promise<ConsumedMessage[]>;
  messages(topic: string): ConsumedMessage[];
  stop(): Promise<void>;
}

/** `topics`: actual topic name -> partition count. */
export async function startTopicReader(
  kafka: KafkaFixture,
  topics: Record<string, number>,
): Promise<TopicReader> {
  const consumer = new Kafka.KafkaConsumer(
    { ...kafka.properties, 'group.id': 'rest2broker-test-reader', 'enable.auto.commit': false },
    {},
  );
  await new Promise<void>((resolve, reject) =>
    consumer.connect({ timeout: 10_000 }, (err) => (err ? reject(new Error(err.message)) : resolve())),
  );
  consumer.assign(
    Object.entries(topics).flatMap(([topic, partitions]) =>
      Array.from({ length: partitions }, (_, partition) => ({ topic, partition, offset: 0 })),
    ),
  );
  consumer.setDefaultConsumeTimeout(100);
  const received = new Map<string, ConsumedMessage[]>(Object.keys(topics).map((t) => [t, []]));
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const batch = await new Promise<Kafka.Message[]>((resolve) =>
        consumer.consume(1000, (err, messages) => resolve(err ? [] : messages)),
      );
      for (const m of batch) {
        received.get(m.topic)?.push({
          topic: m.topic,
          partition: m.partition,
          offset: m.offset,
          key: m.key === undefined || m.key === null ? null : Buffer.from(m.key),
          value: m.value ?? null,
          headers: m.headers as ConsumedMessage['headers'],
          timestamp: m.timestamp,
        });
      }
    }
  })();
  const messages = (topic: string) => received.get(topic) ?? [];
  return {
    messages,
    async waitFor(topic, count, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (messages(topic).length < count) {
        if (Date.now() > deadline) {
          throw new Error(
            `expected ${count} messages on ${topic} within ${timeoutMs} ms, got ${messages(topic).length}`,
          );
        }
        await new Promise((r) => setTimeout(r, 50));
      }
      return messages(topic);
    },
    async stop() {
      stopped = true;
      await loop;
      await new Promise<void>((resolve) => consumer.disconnect(() => resolve()));
    },
  };
}
