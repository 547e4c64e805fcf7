import type { KeyPartitioner } from './key-partitioner.ts';

/**
 * The broker seam. `operators/broker/kafka` implements it on node-rdkafka, `operators/broker/memory`
 * in-process (embedded mode, benchmarks). Operators, the runtime and services depend only on
 * these interfaces, so embedded mode and tests run the same code paths as production.
 */

export interface TopicPartition {
  readonly topic: string;
  readonly partition: number;
}

/** Offset semantics follow Kafka: a committed offset is the next offset to consume. */
export interface TopicPartitionOffset extends TopicPartition {
  readonly offset: number;
}

export type MessageHeaders = ReadonlyArray<Readonly<Record<string, string | Buffer>>>;

/** A record to produce. `partition` absent: the broker's partitioner hashes `key`. */
export interface ProducerRecord {
  readonly topic: string;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly partition?: number;
  readonly headers?: MessageHeaders;
  readonly timestamp?: number;
}

/** The acknowledgement of one produced record (its delivery report). */
export interface DeliveryReport extends TopicPartitionOffset {}

export interface ConsumedMessage extends TopicPartitionOffset {
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers?: MessageHeaders;
  readonly timestamp?: number;
}

export type RebalanceEvent =
  | { readonly kind: 'assign'; readonly partitions: readonly TopicPartition[] }
  | { readonly kind: 'revoke'; readonly partitions: readonly TopicPartition[] };

export interface PartitionLag extends TopicPartition {
  /** Committed offset of the group, or -1 when none. */
  readonly committed: number;
  /** High watermark (offset of the next message to be written). */
  readonly high: number;
  readonly lag: number;
}

export interface BrokerConsumer {
  readonly groupId: string;
  connect(): Promise<void>;
  subscribe(topics: readonly string[]): void;
  /**
   * Non-flowing read of at most `max` messages; resolves with [] after `timeoutMs` when idle.
   * Aborting `signal` resolves it with [] at once; messages fetched meanwhile are not lost, the
   * next `consume` returns them. One `consume` at a time: a second call waits for the first.
   */
  consume(max: number, timeoutMs: number, signal?: AbortSignal): Promise<ConsumedMessage[]>;
  /** Commits exactly these offsets (next offsets to consume). */
  commit(offsets: readonly TopicPartitionOffset[]): Promise<void>;
  pause(partitions: readonly TopicPartition[]): void;
  resume(partitions: readonly TopicPartition[]): void;
  assignment(): TopicPartition[];
  /**
   * Called on every assignment change. On `revoke` the broker waits for the returned promise
   * before giving the partitions away, so in-flight work can be acknowledged and committed.
   */
  onRebalance(listener: (event: RebalanceEvent) => void | Promise<void>): void;
  lag(): Promise<PartitionLag[]>;
  disconnect(): Promise<void>;
}

export interface BrokerProducer {
  connect(): Promise<void>;
  /** Resolves with the delivery report once the broker acknowledged the record; rejects on failure. */
  produce(record: ProducerRecord): Promise<DeliveryReport>;
  flush(timeoutMs: number): Promise<void>;
  disconnect(): Promise<void>;
}

/** Client properties are librdkafka's (`bootstrap.servers`, `socket.timeout.ms`, ...), already resolved. */
export type ClientProperties = Readonly<Record<string, string | number | boolean>>;

export interface Broker {
  consumer(options: { readonly groupId: string; readonly properties?: ClientProperties }): BrokerConsumer;
  producer(options?: { readonly properties?: ClientProperties }): BrokerProducer;
  /**
   * Topics known to the broker with their partition counts; used to fail fast on a missing topic.
   * `properties` (merged over the broker's) name another cluster, e.g. another connection's.
   */
  topics(properties?: ClientProperties): Promise<Map<string, number>>;
  /** How a producer with these properties partitions keyed records (no `partition` given). */
  keyPartitioner(properties?: ClientProperties): KeyPartitioner;
}
