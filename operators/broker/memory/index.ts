/**
 * The in-process broker: embedded mode's broker and the benchmarks' ceiling. Same semantics as
 * the Kafka broker where the engine relies on them (partitions, key partitioning, consumer
 * groups with committed offsets, range assignment, pause/resume, lag), with no serialisation.
 *
 * @example
 *   const broker = new MemoryBroker({ topics: { orders: 4 } });
 *   await broker.producer().produce({ topic: 'orders', key: Buffer.from('k'), value: Buffer.from('{}') });
 *   const consumer = broker.consumer({ groupId: 'g' });
 *   consumer.subscribe(['orders']);
 *   const messages = await consumer.consume(100, 1000);
 *   await consumer.commit(messages.map((m) => ({ ...m, offset: m.offset + 1 })));
 *   await broker.caughtUp('g'); // resolves: everything written is committed
 *
 * With `retention: 'committed'` a partition drops the messages every group that subscribed to its
 * topic has committed (offsets stay absolute), so memory follows the backlog rather than all
 * that was ever written: embedded mode on inputs larger than memory.
 */
import { type KeyPartitioner, partitionForKey } from '../key-partitioner.ts';
import type { Broker, BrokerConsumer, BrokerProducer, ConsumedMessage } from '../types.ts';
import { MemoryConsumer } from './consumer.ts';
import { ConsumerGroup } from './group.ts';
import { type PartitionLog, type Retention, TopicLog } from './log.ts';
import { MemoryProducer } from './producer.ts';

export { MemoryConsumer } from './consumer.ts';
export type { Retention } from './log.ts';
export { MemoryProducer } from './producer.ts';

export interface MemoryBrokerOptions {
  /** Topics to create, with their partition counts. */
  readonly topics?: Record<string, number>;
  /**
   * 'all' (default): keep every message, so `messages()` returns everything ever written.
   * 'committed': keep a partition's messages only until every group that subscribed to its topic
   * committed them; a topic no group subscribed to keeps everything.
   */
  readonly retention?: Retention;
}

/** Offsets of one partition, as Kafka's watermarks. */
export interface PartitionOffsets {
  /** Offset of the oldest message kept (0 unless 'committed' retention dropped some). */
  readonly low: number;
  /** Offset of the next message written. */
  readonly high: number;
}

interface LagWaiter {
  readonly groupIds: readonly string[];
  readonly max: number;
  readonly resolve: () => void;
}

export class MemoryBroker implements Broker {
  readonly #topics = new Map<string, TopicLog>();
  readonly #groups = new Map<string, ConsumerGroup>();
  readonly #retention: Retention;
  readonly #lagWaiters = new Set<LagWaiter>();

  constructor(options?: MemoryBrokerOptions) {
    this.#retention = options?.retention ?? 'all';
    for (const [name, partitions] of Object.entries(options?.topics ?? {}))
      this.createTopic(name, partitions);
  }

  /** Creates a topic (idempotent for the same partition count); groups subscribed to it rebalance. */
  createTopic(name: string, partitions: number): void {
    const existing = this.#topics.get(name);
    if (existing) {
      if (existing.partitions.length === partitions) return;
      throw new Error(
        `topic "${name}" already exists with ${existing.partitions.length} partition(s), not ${partitions}`,
      );
    }
    if (!Number.isInteger(partitions) || partitions < 1) {
      throw new Error(`topic "${name}": partitions must be a positive integer, got ${partitions}`);
    }
    const topic = new TopicLog(name, partitions, this.#retention);
    this.#topics.set(name, topic);
    for (const group of this.#groups.values()) {
      if (!group.topics.has(name)) continue;
      topic.subscribers.add(group.groupId);
      void group.rebalance([]);
    }
  }

  consumer(options: { readonly groupId: string }): BrokerConsumer {
    return new MemoryConsumer(options.groupId, this.#group(options.groupId), (topic, partition) =>
      this.#log(topic, partition),
    );
  }

  producer(): BrokerProducer {
    return new MemoryProducer((topic) => this.#topics.get(topic));
  }

  async topics(): Promise<Map<string, number>> {
    return new Map([...this.#topics].map(([name, topic]) => [name, topic.partitions.length]));
  }

  /** Java's default (murmur2), whatever the properties: the in-process producer has no other. */
  keyPartitioner(): KeyPartitioner {
    return partitionForKey;
  }

  /** Messages written to the group's topics and not yet committed by it. */
  groupLag(groupId: string): number {
    return this.#groups.get(groupId)?.lag() ?? 0;
  }

  /**
   * Resolves once the summed lag of these groups is at most `max` (at once if it already is):
   * waiting for a consumer to catch up without polling, e.g. backpressure on a producer.
   */
  lagAtMost(groupIds: readonly string[], max: number): Promise<void> {
    if (this.groupsLag(groupIds) <= max) return Promise.resolve();
    return new Promise((resolve) => this.#lagWaiters.add({ groupIds, max, resolve }));
  }

  /**
   * Resolves once the group has subscribed and has committed everything written so far to its
   * topics (lag 0 on every partition): how embedded mode knows its input is fully processed.
   */
  caughtUp(groupId: string): Promise<void> {
    return this.#group(groupId).caughtUp();
  }

  /**
   * The messages a topic keeps, one array per partition, copied at the call (tests, examples).
   * With 'all' retention index = offset; with 'committed' a partition's array starts at its
   * `offsets(topic)[p].low`, and holds only what some subscribed group has not committed.
   */
  messages(topic: string): ReadonlyArray<readonly ConsumedMessage[]> {
    return (this.#topics.get(topic)?.partitions ?? []).map((log) => log.retained());
  }

  /** Per partition of a topic, its low and high watermarks ([] for an unknown topic). */
  offsets(topic: string): PartitionOffsets[] {
    return (this.#topics.get(topic)?.partitions ?? []).map((log) => ({ low: log.base, high: log.high }));
  }

  #group(groupId: string): ConsumerGroup {
    let group = this.#groups.get(groupId);
    if (!group) {
      group = new ConsumerGroup(groupId, this.#topics, () => this.#committed());
      this.#groups.set(groupId, group);
    }
    return group;
  }

  /** After any commit: lag only goes down on commits, so that is when waiters are checked. */
  #committed(): void {
    for (const waiter of this.#lagWaiters) {
      if (this.groupsLag(waiter.groupIds) > waiter.max) continue;
      this.#lagWaiters.delete(waiter);
      waiter.resolve();
    }
  }

  /** The summed {@link groupLag} of several groups. */
  groupsLag(groupIds: readonly string[]): number {
    let lag = 0;
    for (const groupId of groupIds) lag += this.groupLag(groupId);
    return lag;
  }

  #log(topic: string, partition: number): PartitionLog | undefined {
    return this.#topics.get(topic)?.partitions[partition];
  }
}
