import type { ConsumedMessage } from '../types.ts';

/** Something woken when a partition it reads gets a new message. */
export interface LogReader {
  wake(): void;
}

/** One partition: an append-only array of messages, and each group's committed offset. */
export class PartitionLog {
  readonly messages: ConsumedMessage[] = [];
  /** group id -> next offset to consume */
  readonly committed = new Map<string, number>();
  /** Group members currently owning this partition (at most one per group). */
  readonly readers = new Set<LogReader>();

  constructor(
    readonly topic: string,
    readonly partition: number,
  ) {}

  append(message: ConsumedMessage): void {
    this.messages.push(message);
    for (const reader of this.readers) reader.wake();
  }

  lag(groupId: string): number {
    return this.messages.length - (this.committed.get(groupId) ?? 0);
  }
}

export class TopicLog {
  readonly partitions: PartitionLog[];
  /** Next partition for a keyless record. */
  roundRobin = 0;

  constructor(
    readonly name: string,
    partitionCount: number,
  ) {
    this.partitions = Array.from({ length: partitionCount }, (_, p) => new PartitionLog(name, p));
  }
}
