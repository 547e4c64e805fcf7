import type { Message, TopicPartitionOffset as RdOffset } from 'node-rdkafka';
import type { ConsumedMessage, TopicPartition, TopicPartitionOffset } from '../types.ts';

/** node-rdkafka's messages and offsets to and from the broker seam's. */
export function toConsumedMessage(message: Message): ConsumedMessage {
  const key = message.key;
  return {
    topic: message.topic,
    partition: message.partition,
    offset: message.offset,
    key: key === undefined || key === null ? null : typeof key === 'string' ? Buffer.from(key) : key,
    value: message.value,
    headers: message.headers,
    timestamp: message.timestamp,
  };
}

export function toRdPartition({ topic, partition }: TopicPartition): TopicPartition {
  return { topic, partition };
}

export function toRdOffset({ topic, partition, offset }: TopicPartitionOffset): RdOffset {
  return { topic, partition, offset };
}

/** The same partitions at the same offsets, in any order (matching a commit callback to its commit). */
export function sameOffsets(a: readonly TopicPartitionOffset[], b: readonly RdOffset[]): boolean {
  return (
    a.length === b.length &&
    a.every((x) => b.some((y) => y.topic === x.topic && y.partition === x.partition && y.offset === x.offset))
  );
}
