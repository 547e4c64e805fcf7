import type { KeyPartitioner } from '../broker/key-partitioner.ts';
import type { ProducerRecord } from '../broker/types.ts';
import { encodeInternalUpdates, type InternalUpdate, internalUpdateId } from './message.ts';

/** Where internal updates go: the topic's partition count and the producer's key partitioner. */
export interface InternalUpdatesRoute {
  readonly topic: string;
  readonly partitions: number;
  readonly partitioner: KeyPartitioner;
}

/**
 * The messages for a batch's internal updates (amended `engine.md` §6): one per target
 * partition, each produced explicitly to the partition that the partitioner gives every update's
 * id in it, the partition a single-key message of that id would get. So each head key's updates
 * keep travelling through one partition in order, whichever instance or version produced them.
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
  return [...byPartition].map(([partition, list]) => encodeInternalUpdates(route.topic, partition, list));
}
