import type {
  BrokerConsumer,
  ConsumedMessage,
  PartitionLag,
  RebalanceEvent,
  TopicPartition,
  TopicPartitionOffset,
} from '../types.ts';
import type { ConsumerGroup, GroupMember } from './group.ts';
import type { LogReader, PartitionLog } from './log.ts';

interface Ownership {
  readonly log: PartitionLog;
  position: number;
  paused: boolean;
}

interface WaitingConsume {
  readonly max: number;
  resolve(messages: ConsumedMessage[]): void;
  readonly timer: NodeJS.Timeout;
  readonly signal: AbortSignal | undefined;
  readonly onAbort: () => void;
}

type RebalanceListener = (event: RebalanceEvent) => void | Promise<void>;

let nextMemberId = 0;

/**
 * A group member of the in-process broker. Messages are taken from the logs only when a
 * `consume` resolves, so a timed-out or aborted `consume` never loses anything.
 */
export class MemoryConsumer implements BrokerConsumer, GroupMember, LogReader {
  readonly memberId = nextMemberId++;
  readonly topics = new Set<string>();
  readonly #owned = new Map<PartitionLog, Ownership>();
  readonly #listeners: RebalanceListener[] = [];
  #waiting: WaitingConsume | null = null;
  #settled: Promise<ConsumedMessage[]> = Promise.resolve([]);
  #wakeScheduled = false;
  /** Where the next read starts, rotating so that no partition starves the others. */
  #cursor = 0;
  #joined = false;

  constructor(
    readonly groupId: string,
    private readonly group: ConsumerGroup,
    private readonly findLog: (topic: string, partition: number) => PartitionLog | undefined,
  ) {}

  async connect(): Promise<void> {}

  subscribe(topics: readonly string[]): void {
    for (const topic of topics) this.topics.add(topic);
    this.#joined = true;
    void this.group.join(this);
  }

  consume(max: number, timeoutMs: number, signal?: AbortSignal): Promise<ConsumedMessage[]> {
    if (this.#waiting) return this.#settled.then(() => this.consume(max, timeoutMs, signal));
    const ready = this.#take(max);
    if (ready.length > 0 || signal?.aborted || timeoutMs <= 0) return Promise.resolve(ready);
    this.#settled = new Promise((resolve) => {
      const onAbort = () => this.#settle([]);
      const timer = setTimeout(onAbort, timeoutMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiting = { max, resolve, timer, signal, onAbort };
    });
    return this.#settled;
  }

  /** Collects everything appended in the same tick before waking a waiting `consume`. */
  wake(): void {
    if (!this.#waiting || this.#wakeScheduled) return;
    this.#wakeScheduled = true;
    queueMicrotask(() => {
      this.#wakeScheduled = false;
      if (!this.#waiting) return;
      const messages = this.#take(this.#waiting.max);
      if (messages.length > 0) this.#settle(messages);
    });
  }

  async commit(offsets: readonly TopicPartitionOffset[]): Promise<void> {
    for (const { topic, partition, offset } of offsets) {
      const log = this.findLog(topic, partition);
      if (!log || !this.#owned.has(log)) {
        throw new Error(
          `cannot commit ${topic}[${partition}] for group ${this.groupId}: not assigned to this member`,
        );
      }
      log.commit(this.groupId, offset);
    }
    this.group.committed();
  }

  pause(partitions: readonly TopicPartition[]): void {
    this.#setPaused(partitions, true);
  }

  resume(partitions: readonly TopicPartition[]): void {
    this.#setPaused(partitions, false);
    this.wake();
  }

  assignment(): TopicPartition[] {
    return [...this.#owned.keys()].map(toTopicPartition);
  }

  onRebalance(listener: RebalanceListener): void {
    this.#listeners.push(listener);
  }

  async lag(): Promise<PartitionLag[]> {
    return [...this.#owned.keys()].map((log) => {
      const committed = log.committedOffset(this.groupId) ?? -1;
      return {
        topic: log.topic,
        partition: log.partition,
        committed,
        high: log.high,
        lag: log.lag(this.groupId),
      };
    });
  }

  async disconnect(): Promise<void> {
    this.#settle([]);
    if (!this.#joined) return;
    this.#joined = false;
    await this.group.leave(this);
  }

  owned(): Iterable<PartitionLog> {
    return this.#owned.keys();
  }

  async revoke(partitions: PartitionLog[]): Promise<void> {
    await this.#notify({ kind: 'revoke', partitions: partitions.map(toTopicPartition) });
    for (const log of partitions) {
      this.#owned.delete(log);
      log.readers.delete(this);
    }
  }

  async assign(partitions: PartitionLog[]): Promise<void> {
    for (const log of partitions) {
      // Without a commit the group reads from the oldest message kept (`auto.offset.reset=earliest`).
      const position = log.committedOffset(this.groupId) ?? log.base;
      this.#owned.set(log, { log, position, paused: false });
      log.readers.add(this);
    }
    await this.#notify({ kind: 'assign', partitions: partitions.map(toTopicPartition) });
    this.wake();
  }

  #take(max: number): ConsumedMessage[] {
    const taken: ConsumedMessage[] = [];
    const owned = [...this.#owned.values()];
    for (let i = 0; i < owned.length && taken.length < max; i++) {
      const ownership = owned[(this.#cursor + i) % owned.length]!;
      if (ownership.paused) continue;
      ownership.position = ownership.log.read(ownership.position, max - taken.length, taken);
    }
    this.#cursor++;
    return taken;
  }

  #settle(messages: ConsumedMessage[]): void {
    const waiting = this.#waiting;
    if (!waiting) return;
    this.#waiting = null;
    clearTimeout(waiting.timer);
    waiting.signal?.removeEventListener('abort', waiting.onAbort);
    waiting.resolve(messages);
  }

  #setPaused(partitions: readonly TopicPartition[], paused: boolean): void {
    for (const { topic, partition } of partitions) {
      const log = this.findLog(topic, partition);
      const ownership = log && this.#owned.get(log);
      if (ownership) ownership.paused = paused;
    }
  }

  async #notify(event: RebalanceEvent): Promise<void> {
    await Promise.allSettled(this.#listeners.map(async (listener) => listener(event)));
  }
}

function toTopicPartition(log: PartitionLog): TopicPartition {
  return { topic: log.topic, partition: log.partition };
}
