import { setTimeout as sleep } from 'node:timers/promises';
import Kafka, {
  type LibrdKafkaError,
  type Message,
  type TopicPartitionOffset as RdOffset,
} from 'node-rdkafka';
import type { Logger } from 'pino';
import type {
  BrokerConsumer,
  ClientProperties,
  ConsumedMessage,
  PartitionLag,
  RebalanceEvent,
  TopicPartition,
  TopicPartitionOffset,
} from '../types.ts';
import { commitWithRetry } from './commit-retry.ts';
import { connectClient } from './connect.ts';
import { ERR, KafkaClientError } from './errors.ts';
import { queryLag } from './lag.ts';
import { sameOffsets, toConsumedMessage, toRdOffset, toRdPartition } from './messages.ts';
import { bootstrapServers, consumerProperties, topicProperties, withStatistics } from './properties.ts';
import { type ClientReplacement, ClientWatchdog, type ClientWatchdogOptions } from './watchdog.ts';

interface PendingCommit {
  readonly offsets: readonly TopicPartitionOffset[];
  resolve(): void;
  reject(error: Error): void;
}

type RebalanceListener = (event: RebalanceEvent) => void | Promise<void>;

/**
 * Longest delay between two polls of an idle consumer: how late it can see the first message
 * after a quiet spell. Each empty poll costs tens of microseconds of CPU, so an idle consumer
 * polling every 20 ms costs about 0.1 % of a core.
 */
const IDLE_POLL_MAX_MS = 20;

/**
 * A consumer-group member on node-rdkafka's `KafkaConsumer` in non-flowing mode.
 *
 * librdkafka serves commit results and rebalances only while the application polls
 * (`consume`). Commits made while a poll runs are asynchronous and settled by
 * `offset_commit_cb`; commits made while nothing polls (a final commit before closing) are
 * synchronous, since no callback would ever be served for them.
 */
export class KafkaBrokerConsumer implements BrokerConsumer {
  readonly groupId: string;
  #client: Kafka.KafkaConsumer;
  readonly #properties: Record<string, string | number | boolean>;
  readonly #servers: string;
  readonly #timeoutMs: number;
  readonly #logger: Logger | undefined;
  readonly #listeners: RebalanceListener[] = [];
  readonly #pendingCommits: PendingCommit[] = [];
  /** Messages a poll returned after its `consume` was aborted: the next `consume` returns them first. */
  #stash: ConsumedMessage[] = [];
  #poll: Promise<void> | null = null;
  /** The current delay between empty polls; 0 after a poll that returned messages. */
  #idleDelayMs = 0;
  #closing = false;
  #topics: readonly string[] = [];
  /** Set while a stranded client is being replaced (see ./watchdog.ts). */
  #replacing: Promise<void> | null = null;
  readonly #watchdog: ClientWatchdog | null;
  readonly #onReplaced: ((event: ClientReplacement) => void) | undefined;

  constructor(options: {
    groupId: string;
    properties: ClientProperties;
    timeoutMs: number;
    logger: Logger | undefined;
    watchdog?: ClientWatchdogOptions | false;
  }) {
    this.groupId = options.groupId;
    this.#servers = bootstrapServers(options.properties);
    this.#timeoutMs = options.timeoutMs;
    this.#logger = options.logger;
    this.#properties = withStatistics(
      consumerProperties(options.properties, options.groupId),
      options.watchdog,
    );
    this.#onReplaced = options.watchdog ? options.watchdog.onReplaced : undefined;
    this.#watchdog = options.watchdog
      ? new ClientWatchdog({
          strandedAfterMs: options.watchdog.strandedAfterMs,
          ...(options.watchdog.stranded ? { stranded: options.watchdog.stranded } : {}),
          onStranded: (reason) => void this.#replace(reason),
        })
      : null;
    this.#client = this.#createClient();
  }

  #createClient(): Kafka.KafkaConsumer {
    const client: Kafka.KafkaConsumer = new Kafka.KafkaConsumer(
      {
        ...this.#properties,
        rebalance_cb: (err: LibrdKafkaError, assignment: Kafka.TopicPartition[]) =>
          void this.#onRebalance(client, err, assignment),
        offset_commit_cb: (err: LibrdKafkaError | undefined, offsets: RdOffset[]) => {
          if (client === this.#client) this.#onCommitted(err, offsets);
        },
      },
      topicProperties(this.#properties),
    );
    client.on('event.error', (err) =>
      this.#logger?.warn({ err, groupId: this.groupId }, 'kafka consumer error'),
    );
    client.on('event.stats', (event: { message: string }) => {
      if (client === this.#client && !this.#replacing) this.#watchdog?.observe(event.message);
    });
    return client;
  }

  async connect(): Promise<void> {
    await connectClient(this.#client, `consumer group ${this.groupId}`, this.#servers, this.#timeoutMs);
  }

  subscribe(topics: readonly string[]): void {
    this.#topics = [...topics];
    this.#client.subscribe([...topics]);
  }

  /**
   * Returns at once what librdkafka has fetched (up to `max`); when it has nothing, polls again
   * after a short idle delay (1 ms, doubling up to {@link IDLE_POLL_MAX_MS}) until a message
   * arrives or `timeoutMs` passed. Never a blocking poll: node-rdkafka runs each `consume` on
   * libuv's pool of 4 threads, and a consumer blocked there waiting for messages holds a thread
   * that every other consumer, lag query and file write of the process needs (an engine has a
   * consumer per node); its `consume(n)` also applies the timeout to every message, not the first,
   * which would hold a trickle back until `n` messages came.
   */
  async consume(max: number, timeoutMs: number, signal?: AbortSignal): Promise<ConsumedMessage[]> {
    while (this.#poll || this.#replacing) await (this.#poll ?? this.#replacing);
    if (this.#stash.length > 0) return this.#stash.splice(0, max);
    if (signal?.aborted) return [];
    return new Promise<ConsumedMessage[]>((resolve, reject) => {
      let aborted = false;
      const onAbort = () => {
        aborted = true;
        resolve([]);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const poll = async () => {
        const deadline = Date.now() + timeoutMs;
        for (;;) {
          const messages = await this.#consumeNow(max);
          if (messages.length > 0) {
            this.#idleDelayMs = 0;
            return messages.map(toConsumedMessage);
          }
          const left = deadline - Date.now();
          if (aborted || left <= 0) return [];
          this.#idleDelayMs = Math.min(IDLE_POLL_MAX_MS, Math.max(1, this.#idleDelayMs * 2));
          await sleep(Math.min(this.#idleDelayMs, left), undefined, { signal }).catch(() => undefined);
        }
      };
      this.#poll = poll().then(
        (converted) => {
          this.#poll = null;
          signal?.removeEventListener('abort', onAbort);
          this.#settleCommitsIfIdle();
          if (aborted) this.#stash.push(...converted);
          else resolve(converted);
        },
        (err: LibrdKafkaError) => {
          this.#poll = null;
          signal?.removeEventListener('abort', onAbort);
          this.#settleCommitsIfIdle();
          if (!aborted)
            reject(new KafkaClientError(`consuming as group ${this.groupId} from ${this.#servers}`, err));
        },
      );
    });
  }

  /** What librdkafka has fetched, up to `max` messages, without waiting (a timeout of 0). */
  #consumeNow(max: number): Promise<Message[]> {
    this.#client.setDefaultConsumeTimeout(0);
    return new Promise((resolve, reject) =>
      this.#client.consume(max, (err, messages) => (err ? reject(err) : resolve(messages))),
    );
  }

  /** Commits `offsets`, repeated as `commitWithRetry` says when the group or its coordinator refused. */
  async commit(offsets: readonly TopicPartitionOffset[]): Promise<void> {
    if (this.#replacing) {
      // A stranded client reaches no coordinator, and its successor does not own these
      // partitions yet: whoever is assigned them next reads them again from the last commit.
      this.#logger?.info({ groupId: this.groupId }, 'commit skipped: the consumer is being replaced');
      return;
    }
    await commitWithRetry(offsets, (pending) => this.#commitOnce(pending), {
      groupId: this.groupId,
      logger: this.#logger,
      assignment: () => this.assignment(),
      closing: () => this.#closing,
    });
  }

  #commitOnce(offsets: readonly TopicPartitionOffset[]): Promise<void> {
    if (offsets.length === 0) return Promise.resolve();
    if (!this.#poll) return Promise.resolve(this.#commitSync(offsets));
    return new Promise<void>((resolve, reject) => {
      this.#pendingCommits.push({ offsets, resolve, reject });
      try {
        this.#client.commit(offsets.map(toRdOffset));
      } catch (error) {
        this.#pendingCommits.pop();
        reject(this.#commitError(offsets, error as Error));
      }
    });
  }

  pause(partitions: readonly TopicPartition[]): void {
    if (partitions.length > 0) this.#client.pause(partitions.map(toRdPartition));
  }

  resume(partitions: readonly TopicPartition[]): void {
    if (partitions.length > 0) this.#client.resume(partitions.map(toRdPartition));
  }

  assignment(): TopicPartition[] {
    if (!this.#client.isConnected()) return [];
    try {
      return this.#client.assignments().map(toRdPartition);
    } catch {
      // "Erroneous state" while the client closes (a shutdown, a replacement): it owns nothing.
      return [];
    }
  }

  onRebalance(listener: RebalanceListener): void {
    this.#listeners.push(listener);
  }

  async lag(): Promise<PartitionLag[]> {
    return queryLag(this.#client, this.groupId, this.assignment(), this.#timeoutMs);
  }

  async disconnect(): Promise<void> {
    this.#closing = true;
    while (this.#poll || this.#replacing) await (this.#poll ?? this.#replacing);
    if (!this.#client.isConnected()) return;
    const assigned = this.assignment();
    // Closing revokes the assignment; listeners get the chance to commit before it happens.
    if (assigned.length > 0) await this.#notify({ kind: 'revoke', partitions: assigned });
    this.#settleCommitsIfIdle();
    await this.#close(this.#client);
  }

  /** Closes `client` within the bound; a close that hangs (librdkafka#3740) is abandoned. */
  #close(client: Kafka.KafkaConsumer): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.#logger?.warn({ groupId: this.groupId }, 'kafka consumer did not close in time; abandoned');
        resolve();
      }, this.#timeoutMs);
      client.disconnect(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /**
   * Replaces a stranded client (./watchdog.ts): its assignment is revoked for the listeners (the
   * pipeline finishes its in-flight batches; their commits are skipped, see `commit`), it is
   * closed within the bound, and a new client joins the group and resumes from the committed
   * offsets. Connecting is repeated, with backoff, until it succeeds or the consumer closes.
   */
  #replace(reason: string): Promise<void> {
    if (this.#replacing || this.#closing) return this.#replacing ?? Promise.resolve();
    this.#logger?.warn({ groupId: this.groupId, reason }, 'kafka consumer stranded: replacing its client');
    this.#onReplaced?.({ client: 'consumer', reason });
    this.#replacing = (async () => {
      while (this.#poll) await this.#poll;
      const stranded = this.#client;
      const assigned = stranded.isConnected() ? stranded.assignments().map(toRdPartition) : [];
      this.#stash = [];
      for (const pending of this.#pendingCommits.splice(0)) pending.resolve();
      if (assigned.length > 0) await this.#notify({ kind: 'revoke', partitions: assigned });
      await this.#close(stranded);
      for (let attempt = 0; !this.#closing; attempt++) {
        const fresh = this.#createClient();
        try {
          await connectClient(fresh, `consumer group ${this.groupId}`, this.#servers, this.#timeoutMs);
          this.#client = fresh;
          this.#watchdog?.reset();
          if (this.#topics.length > 0) fresh.subscribe([...this.#topics]);
          return;
        } catch (error) {
          this.#logger?.warn(
            { err: error, groupId: this.groupId, attempt },
            'kafka consumer replacement failed',
          );
          await sleep(Math.min(10_000, 500 * 2 ** attempt));
        }
      }
    })().finally(() => {
      this.#replacing = null;
    });
    return this.#replacing;
  }

  async #onRebalance(
    client: Kafka.KafkaConsumer,
    err: LibrdKafkaError,
    assignment: Kafka.TopicPartition[],
  ): Promise<void> {
    const partitions = assignment.map(toRdPartition);
    // A replaced client only completes its own (un)assignment: its listeners were told already.
    const current = client === this.#client && !this.#replacing;
    const cooperative = client.rebalanceProtocol() === 'COOPERATIVE';
    try {
      if (err.code === ERR.ASSIGN_PARTITIONS) {
        if (cooperative) client.incrementalAssign(assignment);
        else client.assign(assignment);
        if (current) await this.#notify({ kind: 'assign', partitions });
      } else if (err.code === ERR.REVOKE_PARTITIONS) {
        // librdkafka waits for (un)assign: the partitions stay ours until in-flight work is committed.
        if (current && !this.#closing) await this.#notify({ kind: 'revoke', partitions });
        if (cooperative) client.incrementalUnassign(assignment);
        else client.unassign();
      } else {
        this.#logger?.error({ err, groupId: this.groupId }, 'kafka rebalance failed');
        client.unassign();
      }
    } catch (error) {
      if (client.isConnected()) this.#logger?.error({ err: error, groupId: this.groupId }, 'kafka rebalance');
    }
  }

  async #notify(event: RebalanceEvent): Promise<void> {
    const results = await Promise.allSettled(this.#listeners.map(async (listener) => listener(event)));
    for (const result of results) {
      if (result.status === 'rejected') {
        this.#logger?.error(
          { err: result.reason, groupId: this.groupId, kind: event.kind },
          'rebalance listener failed',
        );
      }
    }
  }

  #onCommitted(err: LibrdKafkaError | undefined, offsets: RdOffset[]): void {
    const index = this.#pendingCommits.findIndex((pending) => sameOffsets(pending.offsets, offsets));
    if (index < 0) return; // Already settled synchronously, see #settleCommitsIfIdle.
    const [pending] = this.#pendingCommits.splice(index, 1);
    if (!err || err.code === ERR.NO_OFFSET) pending?.resolve();
    else pending?.reject(this.#commitError(pending.offsets, err));
  }

  /** A commit whose callback no poll will serve any more is repeated synchronously (committing is idempotent). */
  #settleCommitsIfIdle(): void {
    setImmediate(() => {
      if (this.#poll) return;
      for (const pending of this.#pendingCommits.splice(0)) {
        try {
          this.#commitSync(pending.offsets);
          pending.resolve();
        } catch (error) {
          pending.reject(error as Error);
        }
      }
    });
  }

  #commitSync(offsets: readonly TopicPartitionOffset[]): void {
    try {
      this.#client.commitSync(offsets.map(toRdOffset));
    } catch (error) {
      const code = (error as LibrdKafkaError).code;
      if (code !== ERR.NO_OFFSET) throw this.#commitError(offsets, error as LibrdKafkaError);
    }
  }

  #commitError(offsets: readonly TopicPartitionOffset[], cause: LibrdKafkaError | Error): KafkaClientError {
    const list = offsets.map((o) => `${o.topic}[${o.partition}]@${o.offset}`).join(', ');
    return new KafkaClientError(`committing ${list} for group ${this.groupId}`, cause);
  }
}
