import type { ConsumedMessage, TopicPartitionOffset } from './types.ts';

/**
 * What to commit after processing `messages` in full: per topic and partition, the offset after
 * the last one (Kafka commits the next offset to read).
 *
 * @example
 *   await consumer.commit(nextOffsets(batch));
 */
export function nextOffsets(messages: readonly ConsumedMessage[]): TopicPartitionOffset[] {
  const next = new Map<string, TopicPartitionOffset>();
  for (const m of messages) {
    next.set(`${m.partition}:${m.topic}`, { topic: m.topic, partition: m.partition, offset: m.offset + 1 });
  }
  return [...next.values()];
}
