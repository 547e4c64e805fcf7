import type { KeyPartitioner } from '../../operators/broker/key-partitioner.ts';
import type { ProducerRecord } from '../../operators/broker/types.ts';
import { encodeInternalUpdates, type InternalUpdate, internalUpdateId } from './message.ts';

/** Where internal updates go: the topic's partition count and the producer's key partitioner. */
export interface InternalUpdatesRoute {
  readonly topic: string;
  readonly partitions: number;
  readonly partitioner: KeyPartitioner;
}

/**
 * Characters of head names and keys per message at most: even all in 3-byte UTF-8 the message
 * stays under Kafka's default 1 MB `message.max.bytes`, however large a batch's keys are.
 */
export const MAX_MESSAGE_CHARS = 256 * 1024;

/**
 * The messages for a batch's internal updates (amended `engine.md` §6): one per target
 * partition (more only past `MAX_MESSAGE_CHARS`), each produced explicitly to the partition that
 * the partitioner gives every update's id in it, the partition a single-key message of that id
 * would get. So each head key's updates keep travelling through one partition in order,
 * whichever instance or version produced them.
 */
export function routeInternalUpdates(
  route: InternalUpdatesRoute,
  updates: readonly InternalUpdate[],
): ProducerRecord[] {
  const byPartition = new Map<number, InternalUpdate[]>();
  for (const update of updates) {
    const partition = route.partitioner(Buffer.from(internalUpdateId(update)), route.partitions);
    const list = byPartition.get(partition);
    if (list) list.push(update);
    else byPartition.set(partition, [update]);
  }
  const records: ProducerRecord[] = [];
  for (const [partition, list] of byPartition) {
    for (const chunk of bySize(list)) records.push(encodeInternalUpdates(route.topic, partition, chunk));
  }
  return records;
}

/** Consecutive runs of updates, each under `MAX_MESSAGE_CHARS` (a larger single update alone). */
function* bySize(updates: readonly InternalUpdate[]): Iterable<InternalUpdate[]> {
  let chunk: InternalUpdate[] = [];
  let chars = 0;
  for (const update of updates) {
    const size = update.head.length + update.ck.length;
    if (chunk.length > 0 && chars + size > MAX_MESSAGE_CHARS) {
      yield chunk;
      chunk = [];
      chars = 0;
    }
    chunk.push(update);
    chars += size;
  }
  if (chunk.length > 0) yield chunk;
}
