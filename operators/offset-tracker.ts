/**
 * Per-partition bookkeeping of a source's emitted batches, so that commits cover only what was
 * acknowledged: a partition's committable offset is the end of its longest prefix of acknowledged
 * batches, whatever order acknowledgements arrive in. Kafka offsets may have gaps (compaction,
 * transaction markers), hence ranges in emission order rather than arithmetic on offsets.
 *
 * @example
 *   const tracker = new OffsetTracker();
 *   const ack = tracker.track(messages); // when emitting a batch
 *   ack.ack();                           // when it has been processed
 *   await consumer.commit(tracker.committable());
 */

import type { Acknowledgement } from './batch.ts';
import type { ConsumedMessage, TopicPartition, TopicPartitionOffset } from './broker/types.ts';

interface Range {
  /** Offset after the range's last message. */
  next: number;
  acked: boolean;
}

interface PartitionTrack {
  readonly topic: string;
  readonly partition: number;
  readonly ranges: Range[];
  /** Next offset up to which everything emitted is acknowledged, or -1. */
  committable: number;
  committed: number;
  /** Set when the partition was revoked: late acknowledgements of it are ignored. */
  forgotten: boolean;
}

export class OffsetTracker {
  readonly #tracks = new Map<string, PartitionTrack>();
  #inFlight = 0;
  readonly #listeners = new Set<() => void>();

  /** Batches emitted and not yet acknowledged. */
  get inFlight(): number {
    return this.#inFlight;
  }

  /** Called after every acknowledgement (capacity for the source, revocations waiting). */
  onAck(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  track(messages: readonly ConsumedMessage[]): Acknowledgement {
    const ranges: Array<{ track: PartitionTrack; range: Range }> = [];
    const seen = new Map<PartitionTrack, Range>();
    for (const message of messages) {
      const track = this.#track(message);
      const range = seen.get(track);
      if (range) {
        range.next = Math.max(range.next, message.offset + 1);
      } else {
        const created: Range = { next: message.offset + 1, acked: false };
        seen.set(track, created);
        ranges.push({ track, range: created });
      }
    }
    for (const { track, range } of ranges) track.ranges.push(range);
    this.#inFlight++;
    let done = false;
    return {
      tracker: this,
      ack: () => {
        if (done) return;
        done = true;
        this.#inFlight--;
        for (const { track, range } of ranges) {
          range.acked = true;
          if (!track.forgotten) advance(track);
        }
        for (const listener of this.#listeners) listener();
      },
    };
  }

  /** Offsets to commit: per partition, the end of the acknowledged prefix, when it moved since the last commit. */
  committable(partitions?: readonly TopicPartition[]): TopicPartitionOffset[] {
    const result: TopicPartitionOffset[] = [];
    for (const track of this.#select(partitions)) {
      if (track.committable > track.committed) {
        result.push({ topic: track.topic, partition: track.partition, offset: track.committable });
      }
    }
    return result;
  }

  markCommitted(offsets: readonly TopicPartitionOffset[]): void {
    for (const { topic, partition, offset } of offsets) {
      const track = this.#tracks.get(key(topic, partition));
      if (track && offset > track.committed) track.committed = offset;
    }
  }

  /** Whether every batch emitted from these partitions has been acknowledged. */
  settled(partitions: readonly TopicPartition[]): boolean {
    return this.#select(partitions).every((track) => track.ranges.length === 0);
  }

  /** Drops revoked partitions: their unacknowledged messages will be read again by their next owner. */
  forget(partitions: readonly TopicPartition[]): void {
    for (const track of this.#select(partitions)) {
      track.forgotten = true;
      this.#tracks.delete(key(track.topic, track.partition));
    }
  }

  #select(partitions?: readonly TopicPartition[]): PartitionTrack[] {
    if (!partitions) return [...this.#tracks.values()];
    return partitions.flatMap((p) => this.#tracks.get(key(p.topic, p.partition)) ?? []);
  }

  #track({ topic, partition }: TopicPartition): PartitionTrack {
    const k = key(topic, partition);
    let track = this.#tracks.get(k);
    if (!track) {
      track = { topic, partition, ranges: [], committable: -1, committed: -1, forgotten: false };
      this.#tracks.set(k, track);
    }
    return track;
  }
}

function advance(track: PartitionTrack): void {
  while (track.ranges[0]?.acked) track.committable = track.ranges.shift()!.next;
}

function key(topic: string, partition: number): string {
  return `${partition}:${topic}`;
}
