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
 */
import type { Broker, BrokerConsumer, BrokerProducer, ConsumedMessage } from '../types.ts';
import { MemoryConsumer } from './consumer.ts';
import { ConsumerGroup } from './group.ts';
import { type PartitionLog, TopicLog } from './log.ts';
import { MemoryProducer } from './producer.ts';

export { MemoryConsumer } from './consumer.ts';
export { MemoryProducer } from './producer.ts';

export class MemoryBroker implements Broker {
  readonly #topics = new Map<string, TopicLog>();
  readonly #groups = new Map<string, ConsumerGroup>();

  constructor(options?: { topics?: Record<string, number> }) {
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
    this.#topics.set(name, new TopicLog(name, partitions));
    for (const group of this.#groups.values()) if (group.topics.has(name)) void group.rebalance([]);
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

  /** Messages written to the group's topics and not yet committed by it. */
  groupLag(groupId: string): number {
    return this.#groups.get(groupId)?.lag() ?? 0;
  }

  /**
   * Resolves once the group has subscribed and has committed everything written so far to its
   * topics (lag 0 on every partition): how embedded mode knows its input is fully processed.
   */
  caughtUp(groupId: string): Promise<void> {
    return this.#group(groupId).caughtUp();
  }

  /** The messages of a topic, one array per partition (embedded mode's output, tests). */
  messages(topic: string): ReadonlyArray<readonly ConsumedMessage[]> {
    return (this.#topics.get(topic)?.partitions ?? []).map((log) => log.messages);
  }

  #group(groupId: string): ConsumerGroup {
    let group = this.#groups.get(groupId);
    if (!group) {
      group = new ConsumerGroup(groupId, this.#topics);
      this.#groups.set(groupId, group);
    }
    return group;
  }

  #log(topic: string, partition: number): PartitionLog | undefined {
    return this.#topics.get(topic)?.partitions[partition];
  }
}
