import type Kafka from 'node-rdkafka';
import type { TopicPartitionOffset as RdOffset } from 'node-rdkafka';
import type { PartitionLag, TopicPartition } from '../types.ts';
import { KafkaClientError } from './errors.ts';

/**
 * The group's committed offset and the high watermark of each of `assigned`, from the broker
 * (not librdkafka's cached figures: `idle()` must not be fooled by a stale watermark).
 */
export async function queryLag(
  client: Kafka.KafkaConsumer,
  groupId: string,
  assigned: readonly TopicPartition[],
  timeoutMs: number,
): Promise<PartitionLag[]> {
  if (assigned.length === 0) return [];
  const committed = await new Promise<RdOffset[]>((resolve, reject) =>
    client.committed([...assigned], timeoutMs, (err, offsets) =>
      err
        ? reject(new KafkaClientError(`reading committed offsets of group ${groupId}`, err))
        : resolve(offsets),
    ),
  );
  // One partition after another: each query is a broker round trip on one of libuv's 4 pool
  // threads, and queries in parallel would hold them all while the consumers need them.
  const lags: PartitionLag[] = [];
  for (const { topic, partition, offset } of committed) {
    const { lowOffset, highOffset } = await new Promise<Kafka.WatermarkOffsets>((resolve, reject) =>
      client.queryWatermarkOffsets(topic, partition, timeoutMs, (err, watermarks) =>
        err
          ? reject(new KafkaClientError(`reading watermarks of ${topic}[${partition}]`, err))
          : resolve(watermarks),
      ),
    );
    const hasCommitted = offset >= 0;
    lags.push({
      topic,
      partition,
      committed: hasCommitted ? offset : -1,
      high: highOffset,
      lag: Math.max(0, highOffset - (hasCommitted ? offset : lowOffset)),
    });
  }
  return lags;
}
