import type { ConsumedMessage } from '../types.ts';
import { OffsetArray } from './offset-array.ts';

/**
 * What a partition keeps: 'all' (every message ever appended; tests read them back) or
 * 'committed' (only what some group that subscribed to the topic has not committed yet, so
 * memory follows the backlog, not the total written: embedded mode on large inputs).
 */
export type Retention = 'all' | 'committed';

/** Something woken when a partition it reads gets a new message. */
export interface LogReader {
  wake(): void;
}

/**
 * One partition: its messages by absolute offset (from `base`, which only moves under
 * 'committed' retention) and each group's committed offset.
 */
export class PartitionLog {
  readonly #messages = new OffsetArray<ConsumedMessage>();
  /** group id -> next offset to consume */
  readonly #committed = new Map<string, number>();
  /** Group members currently owning this partition (at most one per group). */
  readonly readers = new Set<LogReader>();

  constructor(
    readonly topic: string,
    readonly partition: number,
    private readonly retention: Retention,
    /** Groups that subscribed to the topic: under 'committed' retention each holds messages back. */
    private readonly subscribers: ReadonlySet<string>,
  ) {}

  /** Offset of the oldest message kept (Kafka's low watermark). */
  get base(): number {
    return this.#messages.base;
  }

  /** Offset of the next message appended (Kafka's high watermark). */
  get high(): number {
    return this.#messages.end;
  }

  /** Appends a message; its offset must be `high`. */
  append(message: ConsumedMessage): void {
    this.#messages.push(message);
    for (const reader of this.readers) reader.wake();
  }

  /**
   * Appends to `into` at most `max` messages from `offset`, and returns the offset to read next.
   * Reading below `base` starts at `base`: those messages are gone (a group that joined late).
   */
  read(offset: number, max: number, into: ConsumedMessage[]): number {
    const from = Math.max(offset, this.base);
    const to = Math.min(this.high, from + max);
    if (to <= from) return from;
    this.#messages.copyInto(from, to, into);
    return to;
  }

  /** The messages kept, oldest first (the first one has offset `base`). */
  retained(): ConsumedMessage[] {
    return this.#messages.toArray();
  }

  committedOffset(groupId: string): number | undefined {
    return this.#committed.get(groupId);
  }

  commit(groupId: string, offset: number): void {
    this.#committed.set(groupId, offset);
    if (this.retention === 'committed') this.#messages.dropBelow(this.#lowestCommitted());
  }

  lag(groupId: string): number {
    return this.high - Math.max(this.base, this.#committed.get(groupId) ?? 0);
  }

  /** What every subscribed group has committed; one without a commit here reads from `base`. */
  #lowestCommitted(): number {
    if (this.subscribers.size === 0) return this.base;
    let lowest = this.high;
    for (const group of this.subscribers) lowest = Math.min(lowest, this.#committed.get(group) ?? this.base);
    return lowest;
  }
}

export class TopicLog {
  readonly partitions: PartitionLog[];
  /** Groups that ever subscribed to the topic (as Kafka keeps a group's offsets after it leaves). */
  readonly subscribers = new Set<string>();
  /** Next partition for a keyless record. */
  roundRobin = 0;

  constructor(
    readonly name: string,
    partitionCount: number,
    retention: Retention,
  ) {
    this.partitions = Array.from(
      { length: partitionCount },
      (_, p) => new PartitionLog(name, p, retention, this.subscribers),
    );
  }
}
