import Kafka, { type LibrdKafkaError, type DeliveryReport as RdDeliveryReport } from 'node-rdkafka';
import type { Logger } from 'pino';
import type { BrokerProducer, ClientProperties, DeliveryReport, ProducerRecord } from '../types.ts';
import { connectClient } from './connect.ts';
import { ERR, KafkaClientError } from './errors.ts';
import { bootstrapServers, producerProperties, topicProperties } from './properties.ts';

interface PendingDelivery {
  readonly topic: string;
  resolve(report: DeliveryReport): void;
  reject(error: Error): void;
}

/** How often delivery reports are served while records are awaiting them. */
const POLL_INTERVAL_MS = 5;

/**
 * An idempotent producer (`acks=all`) on node-rdkafka. Each `produce` resolves with its own
 * delivery report: the report carries the record's sequence number as librdkafka's opaque value.
 */
export class KafkaBrokerProducer implements BrokerProducer {
  readonly #client: Kafka.Producer;
  readonly #servers: string;
  readonly #timeoutMs: number;
  readonly #pending = new Map<number, PendingDelivery>();
  /** Wakes `produce` calls waiting for room in librdkafka's full local queue. */
  #roomWaiters: Array<() => void> = [];
  #sequence = 0;
  #poller: NodeJS.Timeout | undefined;

  constructor(options: { properties: ClientProperties; timeoutMs: number; logger: Logger | undefined }) {
    this.#servers = bootstrapServers(options.properties);
    this.#timeoutMs = options.timeoutMs;
    const properties = producerProperties(options.properties);
    this.#client = new Kafka.Producer({ ...properties, dr_cb: true }, topicProperties(properties));
    this.#client.on('delivery-report', (err, report) => this.#onDelivery(err, report));
    this.#client.on('event.error', (err) => options.logger?.warn({ err }, 'kafka producer error'));
  }

  async connect(): Promise<void> {
    await connectClient(this.#client, 'producer', this.#servers, this.#timeoutMs);
  }

  async produce(record: ProducerRecord): Promise<DeliveryReport> {
    const opaque = ++this.#sequence;
    const delivered = new Promise<DeliveryReport>((resolve, reject) =>
      this.#pending.set(opaque, { topic: record.topic, resolve, reject }),
    );
    for (;;) {
      try {
        this.#client.produce(
          record.topic,
          record.partition ?? null,
          record.value,
          record.key,
          record.timestamp ?? null,
          opaque,
          record.headers as Kafka.MessageHeader[] | undefined,
        );
        break;
      } catch (error) {
        if ((error as LibrdKafkaError).code === ERR.QUEUE_FULL) {
          this.#startPolling();
          await new Promise<void>((wake) => this.#roomWaiters.push(wake));
          continue;
        }
        this.#pending.delete(opaque);
        throw new KafkaClientError(`producing to ${record.topic} on ${this.#servers}`, error as Error);
      }
    }
    this.#startPolling();
    return delivered;
  }

  flush(timeoutMs: number): Promise<void> {
    return new Promise((resolve, reject) =>
      this.#client.flush(timeoutMs, (err) =>
        err ? reject(new KafkaClientError(`flushing the producer to ${this.#servers}`, err)) : resolve(),
      ),
    );
  }

  async disconnect(): Promise<void> {
    if (!this.#client.isConnected()) return;
    await this.flush(this.#timeoutMs).catch(() => {});
    this.#stopPolling();
    await new Promise<void>((resolve) => this.#client.disconnect(this.#timeoutMs, () => resolve()));
    for (const pending of this.#pending.values()) {
      pending.reject(
        new Error(`producer disconnected before the delivery report of a record to ${pending.topic}`),
      );
    }
    this.#pending.clear();
  }

  #onDelivery(err: LibrdKafkaError | null | undefined, report: RdDeliveryReport): void {
    const pending = this.#pending.get(report.opaque as number);
    if (pending) {
      this.#pending.delete(report.opaque as number);
      if (err) {
        pending.reject(new KafkaClientError(`delivery to ${report.topic} on ${this.#servers} failed`, err));
      } else {
        pending.resolve({ topic: report.topic, partition: report.partition, offset: report.offset });
      }
    }
    for (const wake of this.#roomWaiters.splice(0)) wake();
    if (this.#pending.size === 0) this.#stopPolling();
  }

  /** Polls only while reports are awaited, so an idle producer holds no timer. */
  #startPolling(): void {
    this.#poller ??= setInterval(() => {
      if (this.#client.isConnected()) this.#client.poll();
    }, POLL_INTERVAL_MS);
  }

  #stopPolling(): void {
    clearInterval(this.#poller);
    this.#poller = undefined;
  }
}
