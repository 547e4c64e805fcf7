/**
 * The raw-client anchor: the 2-hop pipe written on node-rdkafka directly, as a user of the client
 * would write it without this project, sharing none of its code (no broker seam, no operators).
 *
 * Per hop (input topics -> internal, internal -> output): a consumer-group member reading
 * `consume(1000)` in a loop, `JSON.parse`/`JSON.stringify` of each key and value, an idempotent
 * `acks=all` producer, and at-least-once commits: a batch's offsets become committable once every
 * record it produced has its delivery report, and what is committable is committed every 500 ms.
 * Batches are pipelined (the next is read while the last awaits its reports); librdkafka's own
 * queue bound (`QUEUE_FULL`) is the backpressure. It is the ceiling of this client on this machine
 * for the work both hops of the engine must do.
 */
import Kafka, { type LibrdKafkaError, type Message } from 'node-rdkafka';
import type { KafkaTarget, RunTopics } from './kafka-target.ts';

const BATCH = 1000;
const POLL_TIMEOUT_MS = 100;
const COMMIT_INTERVAL_MS = 500;
/** librdkafka's code for a full local producer queue. */
const QUEUE_FULL = -184;

interface PendingBatch {
  remaining: number;
  /** Next offset to commit per `topic\0partition`, once the batch is delivered. */
  readonly offsets: Map<string, number>;
}

class Hop {
  readonly consumer: Kafka.KafkaConsumer;
  readonly producer: Kafka.Producer;
  assigned = false;
  started = false;
  stopped = false;
  failure: Error | null = null;
  /** Batches in consumption order; the delivered prefix is committable. */
  readonly #pending: PendingBatch[] = [];
  readonly #committable = new Map<string, number>();
  #loop: Promise<void> = Promise.resolve();
  #commitTimer: NodeJS.Timeout | undefined;

  constructor(
    bootstrap: string,
    groupId: string,
    readonly from: readonly string[],
    readonly to: string,
  ) {
    this.consumer = new Kafka.KafkaConsumer(
      {
        'bootstrap.servers': bootstrap,
        'group.id': groupId,
        'enable.auto.commit': false,
        rebalance_cb: (err: LibrdKafkaError, assignment: Kafka.Assignment[]) => {
          if (err.code === Kafka.CODES.ERRORS.ERR__ASSIGN_PARTITIONS) {
            this.consumer.assign(assignment);
            if (!this.started) this.consumer.pause(assignment);
            this.assigned = true;
          } else {
            this.consumer.unassign();
          }
        },
      },
      { 'auto.offset.reset': 'earliest' },
    );
    this.producer = new Kafka.Producer(
      { 'bootstrap.servers': bootstrap, 'enable.idempotence': true, dr_cb: true },
      { acks: -1 },
    );
    this.producer.on('delivery-report', (err, report) => {
      if (err) this.failure ??= new Error(`raw pipe delivery failed: ${err.message}`);
      const batch = report.opaque as PendingBatch;
      if (--batch.remaining === 0) this.#settle();
    });
  }

  async connect(): Promise<void> {
    await Promise.all([
      new Promise<void>((ok, ko) => this.consumer.connect({}, (e) => (e ? ko(e) : ok()))),
      new Promise<void>((ok, ko) => this.producer.connect({}, (e) => (e ? ko(e) : ok()))),
    ]);
    this.producer.setPollInterval(5);
    this.consumer.subscribe([...this.from]);
    this.#loop = this.#run();
  }

  start(): void {
    this.started = true;
    this.consumer.resume(this.consumer.assignments());
    this.#commitTimer = setInterval(() => this.#commit(), COMMIT_INTERVAL_MS);
  }

  async #run(): Promise<void> {
    while (!this.stopped) {
      // What is fetched already, at once; only when there is nothing, wait for the next message
      // (node-rdkafka's timeout holds every message of a `consume(n)`, not only the first).
      let messages = await this.#consume(BATCH, 0);
      if (messages.length === 0) messages = await this.#consume(1, POLL_TIMEOUT_MS);
      if (messages.length === 0) continue;
      const batch: PendingBatch = { remaining: messages.length, offsets: new Map() };
      this.#pending.push(batch);
      for (const m of messages) {
        batch.offsets.set(`${m.topic}\0${m.partition}`, m.offset + 1);
        const key = Buffer.from(JSON.stringify(JSON.parse((m.key as Buffer).toString('utf8'))));
        const value = Buffer.from(JSON.stringify(JSON.parse((m.value as Buffer).toString('utf8'))));
        await this.#produce(key, value, batch, m.headers);
      }
    }
  }

  #consume(max: number, timeoutMs: number): Promise<Message[]> {
    this.consumer.setDefaultConsumeTimeout(timeoutMs);
    return new Promise((ok, ko) => this.consumer.consume(max, (e, m) => (e ? ko(e) : ok(m))));
  }

  async #produce(key: Buffer, value: Buffer, batch: PendingBatch, headers: Message['headers']) {
    for (;;) {
      try {
        this.producer.produce(this.to, null, value, key, null, batch, headers);
        return;
      } catch (error) {
        if ((error as LibrdKafkaError).code !== QUEUE_FULL) throw error;
        this.producer.poll();
        await new Promise((wake) => setTimeout(wake, 1));
      }
    }
  }

  #settle(): void {
    while (this.#pending[0]?.remaining === 0) {
      for (const [tp, offset] of (this.#pending.shift() as PendingBatch).offsets)
        this.#committable.set(tp, offset);
    }
  }

  #commit(): void {
    if (this.#committable.size === 0) return;
    const offsets = [...this.#committable].map(([tp, offset]) => {
      const [topic, partition] = tp.split('\0') as [string, string];
      return { topic, partition: Number(partition), offset };
    });
    this.#committable.clear();
    this.consumer.commit(offsets);
  }

  /** Committed offsets equal the high watermarks on every assigned partition. */
  async drained(): Promise<boolean> {
    const assigned = this.consumer.assignments();
    if (assigned.length === 0) return false;
    const committed = await new Promise<Kafka.TopicPartitionOffset[]>((ok, ko) =>
      this.consumer.committed(assigned, 10_000, (e, o) => (e ? ko(e) : ok(o))),
    );
    // One query at a time, as the engine's lag(): parallel ones would hold libuv's pool threads.
    const highs: number[] = [];
    for (const p of committed) {
      highs.push(
        await new Promise<number>((ok, ko) =>
          this.consumer.queryWatermarkOffsets(p.topic, p.partition, 10_000, (e, w) =>
            e ? ko(e) : ok(w.highOffset),
          ),
        ),
      );
    }
    return committed.every((p, i) => (highs[i] === 0 ? true : p.offset === highs[i]));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.#commitTimer);
    await this.#loop.catch(() => undefined);
    await new Promise<void>((done) => this.producer.flush(10_000, () => done()));
    this.#commit();
    await new Promise<void>((done) => this.consumer.disconnect(() => done()));
    await new Promise<void>((done) => this.producer.disconnect(() => done()));
  }

  get loop(): Promise<void> {
    return this.#loop;
  }
}

export async function startKafkaRawPipe(
  bootstrap: string,
  topics: RunTopics,
  runId: string,
): Promise<KafkaTarget> {
  const hops = [
    new Hop(bootstrap, `bench.raw.${runId}.0`, [...topics.inputs.values()], topics.internal),
    new Hop(bootstrap, `bench.raw.${runId}.1`, [topics.internal], topics.output),
  ];
  await Promise.all(hops.map((h) => h.connect()));
  const failed = Promise.race(hops.map((h) => h.loop)).then(() => {
    throw new Error('the raw pipe stopped');
  });
  failed.catch(() => undefined);
  return {
    ready: async () => hops.every((h) => h.assigned),
    start: () => {
      for (const hop of hops) hop.start();
    },
    idle: async () => {
      const failure = hops.find((h) => h.failure)?.failure;
      if (failure) throw failure;
      const drained = await Promise.all(hops.map((h) => h.drained())).catch(() => [false]);
      return drained.every(Boolean);
    },
    failed,
    async stop() {
      await Promise.all(hops.map((h) => h.stop()));
    },
  };
}
