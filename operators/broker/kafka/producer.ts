import Kafka, { type LibrdKafkaError, type DeliveryReport as RdDeliveryReport } from 'node-rdkafka';
import type { Logger } from 'pino';
import type { BrokerProducer, ClientProperties, DeliveryReport, ProducerRecord } from '../types.ts';
import { connectClient } from './connect.ts';
import { ERR, isFatalProducerError, KafkaClientError } from './errors.ts';
import { bootstrapServers, producerProperties, topicProperties, withStatistics } from './properties.ts';
import { type ClientReplacement, ClientWatchdog, type ClientWatchdogOptions } from './watchdog.ts';

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
 *
 * After a fatal error (e.g. an out-of-order sequence number) an idempotent librdkafka producer
 * fails every record forever; librdkafka's remedy is a new producer. So the records awaiting
 * delivery are rejected at once, and the next `produce` replaces the client with a fresh one
 * (a new producer id): the caller retries what failed, nothing needs a process restart.
 */
export class KafkaBrokerProducer implements BrokerProducer {
  #client: Kafka.Producer;
  readonly #properties: ClientProperties;
  readonly #logger: Logger | undefined;
  readonly #servers: string;
  readonly #timeoutMs: number;
  #fatal: LibrdKafkaError | KafkaClientError | null = null;
  #replacing: Promise<void> | null = null;
  readonly #pending = new Map<number, PendingDelivery>();
  /** Wakes `produce` calls waiting for room in librdkafka's full local queue. */
  #roomWaiters: Array<() => void> = [];
  #sequence = 0;
  #poller: NodeJS.Timeout | undefined;
  /** Serves the statistics of an idle client to the watchdog (events arrive only through `poll`). */
  #statisticsPoller: NodeJS.Timeout | undefined;
  readonly #watchdog: ClientWatchdog | null;
  readonly #onReplaced: ((event: ClientReplacement) => void) | undefined;

  constructor(options: {
    properties: ClientProperties;
    timeoutMs: number;
    logger: Logger | undefined;
    watchdog?: ClientWatchdogOptions | false;
  }) {
    this.#servers = bootstrapServers(options.properties);
    this.#timeoutMs = options.timeoutMs;
    this.#logger = options.logger;
    this.#properties = withStatistics(producerProperties(options.properties), options.watchdog);
    this.#onReplaced = options.watchdog ? options.watchdog.onReplaced : undefined;
    this.#watchdog = options.watchdog
      ? new ClientWatchdog({
          strandedAfterMs: options.watchdog.strandedAfterMs,
          ...(options.watchdog.stranded ? { stranded: options.watchdog.stranded } : {}),
          onStranded: (reason) => this.#onStranded(reason),
        })
      : null;
    this.#client = this.#createClient();
    const statisticsIntervalMs = Number(this.#properties['statistics.interval.ms'] ?? 0);
    if (this.#watchdog && statisticsIntervalMs > 0) {
      // A producer with no record in flight polls nothing, so a stranded idle client would be seen
      // only when records already wait on it: it is watched at the statistics' own cadence instead.
      this.#statisticsPoller = setInterval(() => {
        if (!this.#poller && this.#client.isConnected()) this.#client.poll();
      }, statisticsIntervalMs).unref();
    }
  }

  #createClient(): Kafka.Producer {
    const client = new Kafka.Producer(
      { ...this.#properties, dr_cb: true },
      topicProperties(this.#properties),
    );
    client.on('delivery-report', (err, report) => {
      if (client === this.#client) this.#onDelivery(err, report);
    });
    client.on('event.error', (err) => {
      this.#logger?.warn({ err }, 'kafka producer error');
      if (client === this.#client && isFatalProducerError(err)) this.#failAll(err);
    });
    client.on('event.stats', (event: { message: string }) => {
      if (client === this.#client && !this.#fatal) this.#watchdog?.observe(event.message);
    });
    return client;
  }

  /**
   * A stranded client (./watchdog.ts) would hold its records until `message.timeout.ms` and then
   * fail them: they fail now (their batches are not acknowledged, so they are produced again),
   * and a new client is connected at once rather than by the next `produce`.
   */
  #onStranded(reason: string): void {
    this.#logger?.warn({ reason, servers: this.#servers }, 'kafka producer stranded: replacing its client');
    this.#onReplaced?.({ client: 'producer', reason });
    this.#failAll(new KafkaClientError('the producer was left without a broker', new Error(reason)), reason);
    this.#replaceClient().catch((err: unknown) =>
      this.#logger?.warn({ err }, 'kafka producer replacement failed; the next produce tries again'),
    );
  }

  async connect(): Promise<void> {
    await connectClient(this.#client, 'producer', this.#servers, this.#timeoutMs);
  }

  async produce(record: ProducerRecord): Promise<DeliveryReport> {
    if (this.#fatal) await this.#replaceClient();
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
          // Woken by a fatal error: this record was rejected with the others; the caller retries.
          if (!this.#pending.has(opaque)) return delivered;
          continue;
        }
        this.#pending.delete(opaque);
        // The client can turn fatal before its error event arrives: the next produce replaces it.
        if (isFatalProducerError(error as LibrdKafkaError)) this.#failAll(error as LibrdKafkaError);
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
    clearInterval(this.#statisticsPoller);
    if (!this.#client.isConnected()) {
      this.#stopPolling();
      return;
    }
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
    if (err && isFatalProducerError(err)) this.#failAll(err);
    for (const wake of this.#roomWaiters.splice(0)) wake();
    if (this.#pending.size === 0) this.#stopPolling();
  }

  /** A fatal error (or a stranded client): no record awaiting delivery can succeed any more, reject them all now. */
  #failAll(err: LibrdKafkaError | KafkaClientError, stranded?: string): void {
    if (this.#fatal) return;
    this.#fatal = err;
    if (!stranded) this.#logger?.error({ err }, 'fatal kafka producer error: the producer will be replaced');
    for (const pending of this.#pending.values()) {
      pending.reject(
        new KafkaClientError(
          `delivery to ${pending.topic} on ${this.#servers} failed (${stranded ? 'no broker left' : 'fatal producer error'})`,
          err,
        ),
      );
    }
    this.#pending.clear();
    this.#stopPolling();
    for (const wake of this.#roomWaiters.splice(0)) wake();
  }

  /** Swaps in a connected fresh client (once, whoever asks first); the old one closes behind. */
  #replaceClient(): Promise<void> {
    this.#replacing ??= (async () => {
      const old = this.#client;
      const fresh = this.#createClient();
      await connectClient(fresh, 'producer', this.#servers, this.#timeoutMs);
      this.#client = fresh;
      this.#fatal = null;
      this.#watchdog?.reset();
      old.disconnect(this.#timeoutMs, () => {});
    })().finally(() => {
      this.#replacing = null;
    });
    return this.#replacing;
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
