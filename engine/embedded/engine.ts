import type { Logger } from 'pino';
import { MemoryBroker } from '../../operators/broker/memory/index.ts';
import { nextOffsets } from '../../operators/broker/next-offsets.ts';
import type {
  BrokerConsumer,
  BrokerProducer,
  ConsumedMessage,
  ProducerRecord,
} from '../../operators/broker/types.ts';
import type { Config } from '../config/index.ts';
import type { EngineMetrics } from '../metrics/index.ts';
import { deadLetterTopics } from '../runtime/clients.ts';
import { compileConfig } from '../runtime/compile.ts';
import { groupIdOf, INTERNAL_PART, type RunningEngine, startEngine } from '../runtime/engine.ts';
// The memory store alone: the store index also loads the MongoDB driver (and its 17 MB BSON buffer).
import { MemoryStore } from '../store/memory-store.ts';
import type { Store } from '../store/types.ts';

export interface EmbeddedEngineOptions {
  readonly config: Config;
  readonly logger: Logger;
  readonly metrics?: EngineMetrics;
  /** Partitions of every in-process topic (default 4). */
  readonly partitions?: number;
  /** The store (default: a MemoryStore; the benchmarks pass a MongoStore). The engine opens it. */
  readonly store?: Store;
  /**
   * Receives every output message, in order per partition, as the engine emits it. A returned
   * promise holds back the next message until it settles (a slow sink's backpressure); one that
   * rejects, or a throw, stops the deliveries and makes `feed` and `drain` reject with it.
   */
  readonly onOutput?: (message: ConsumedMessage) => unknown;
  /** Largest input batch (default 1000). */
  readonly maxBatchSize?: number;
  /** Batches read ahead per input consumer (default: the runtime's). */
  readonly maxInFlight?: number;
  /**
   * Input records fed and not yet committed by the engine at which `feed` waits (default
   * `EMBEDDED_MAX_PENDING_INPUT`): with the broker keeping only uncommitted messages, this bounds
   * the memory of an input of any size.
   */
  readonly maxPendingInput?: number;
  /**
   * Internal updates not yet processed plus outputs not yet passed to `onOutput` at which `feed`
   * waits as well (default `EMBEDDED_MAX_PENDING_DOWNSTREAM`): what the engine derived from the
   * input must not pile up either when recomputing or the output sink is the slower part.
   */
  readonly maxPendingDownstream?: number;
}

/**
 * Well above the input consumers' read-ahead, so waiting for room seldom starves them, and with
 * commits every 500 ms (the default interval) still room for 100k records/s.
 */
export const EMBEDDED_MAX_PENDING_INPUT = 50_000;
/** Well above what the internal-updates consumer holds for one compression window at 100k/s. */
export const EMBEDDED_MAX_PENDING_DOWNSTREAM = 50_000;

const OUTPUT_GROUP = 'streamfold.embedded.output';
/** Embedded mode has no client properties (so every group id is the default one). */
const NO_PROPERTIES = {};
const IDLE_POLL_MS = 5;
const OUTPUT_BATCH = 10_000;
/** Longest wait of one output read; `stop` aborts it, so this only spaces out idle wake-ups. */
const OUTPUT_WAIT_MS = 1_000;

/**
 * The engine on an in-process broker and the in-memory store (`engine.md` §11): the same
 * runtime, graph, filters, modes and internal updates as on Kafka and MongoDB. Feed records,
 * `drain()` until everything fed is processed and its output delivered, then `stop()`.
 *
 * Memory stays bounded whatever the input size: the broker keeps only uncommitted messages,
 * outputs go to `onOutput` (and are committed) while the engine runs, and `feed` waits while
 * too much of the input, or of what the engine derived from it, is not processed yet.
 */
export class EmbeddedEngine {
  /** Set once the engine or the output loop failed, or the engine stopped: feed and drain reject. */
  #halted: { error: unknown } | undefined;
  /** Rejects with `#halted.error` (handled: only ever raced). */
  readonly #halt: Promise<never>;
  readonly #stopOutput = new AbortController();
  readonly #outputLoop: Promise<void>;
  /** Groups whose uncommitted messages `feed` bounds, with each bound: input, then downstream. */
  readonly #bounds: ReadonlyArray<{ readonly groupIds: readonly string[]; readonly max: number }>;

  private constructor(
    readonly engine: RunningEngine,
    readonly store: Store,
    readonly broker: MemoryBroker,
    private readonly input: BrokerProducer,
    private readonly output: BrokerConsumer,
    private readonly onOutput: (message: ConsumedMessage) => unknown,
    bounds: { readonly input: number; readonly downstream: number },
  ) {
    this.#bounds = [
      { groupIds: [...engine.consumers.values()].map((consumer) => consumer.groupId), max: bounds.input },
      {
        groupIds: [groupIdOf(engine.compiled.config.id, INTERNAL_PART, NO_PROPERTIES), OUTPUT_GROUP],
        max: bounds.downstream,
      },
    ];
    let halt!: (error: unknown) => void;
    this.#halt = new Promise<never>((_, reject) => {
      halt = (error) => {
        this.#halted ??= { error };
        reject(this.#halted.error);
        // No output comes once the engine ended: the loop's timer must not keep the process up.
        this.#stopOutput.abort();
      };
    });
    this.#halt.catch(() => undefined);
    // A failed engine never commits again: without this a waiting feed or drain would hang.
    engine.done.then(
      () => halt(new Error('the embedded engine is stopped')),
      (error: unknown) => halt(error),
    );
    this.#outputLoop = this.#deliverOutputs().catch((error: unknown) => halt(error));
  }

  /** Topics the engine consumes (`consumers.config.*.topic`). */
  get inputTopics(): ReadonlySet<string> {
    return new Set(this.engine.compiled.topics.values());
  }

  static async start(options: EmbeddedEngineOptions): Promise<EmbeddedEngine> {
    const bounds = {
      input: positive('maxPendingInput', options.maxPendingInput ?? EMBEDDED_MAX_PENDING_INPUT),
      downstream: positive(
        'maxPendingDownstream',
        options.maxPendingDownstream ?? EMBEDDED_MAX_PENDING_DOWNSTREAM,
      ),
    };
    const compiled = compileConfig(options.config);
    const { config } = compiled;
    const partitions = options.partitions ?? 4;
    const deadLetters = deadLetterTopics(config);
    const topics = [
      ...compiled.topics.values(),
      config.processor.internalUpdates.config.topic,
      config.producer.config.topic,
      ...deadLetters.values(),
    ];
    const broker = new MemoryBroker({
      topics: Object.fromEntries(topics.map((t) => [t, partitions])),
      retention: 'committed',
    });
    const store = options.store ?? new MemoryStore(compiled.layout);
    const engine = await startEngine({
      compiled,
      broker,
      store,
      logger: options.logger,
      clients: {
        consumer: () => NO_PROPERTIES,
        producer: NO_PROPERTIES,
        internalConsumer: NO_PROPERTIES,
        internalProducer: NO_PROPERTIES,
      },
      deadLetterTopics: deadLetters,
      ...(options.metrics ? { metrics: options.metrics } : {}),
      ...(options.maxBatchSize ? { maxBatchSize: options.maxBatchSize } : {}),
      ...(options.maxInFlight ? { maxInFlight: options.maxInFlight } : {}),
    });
    const output = broker.consumer({ groupId: OUTPUT_GROUP });
    await output.connect();
    output.subscribe([config.producer.config.topic]);
    const input = broker.producer();
    await input.connect();
    return new EmbeddedEngine(engine, store, broker, input, output, options.onOutput ?? (() => {}), bounds);
  }

  /**
   * Appends one record to an input topic (acknowledged by the in-process broker), first waiting
   * while `maxPendingInput` fed records are not committed by the engine, or
   * `maxPendingDownstream` internal updates and outputs are not processed. Rejects once the
   * engine failed (with its error) or stopped.
   */
  async feed(record: ProducerRecord): Promise<void> {
    await this.inputCapacity();
    await this.input.produce(record);
  }

  /**
   * Resolves once `feed` would append at once (at once if it would): for callers that append
   * to the input topics through their own producer. Rejects once the engine failed or stopped.
   */
  async inputCapacity(): Promise<void> {
    for (let full = this.#full(); full; full = this.#full()) {
      // Commits are what lowers lag: the broker resolves this on the commit that makes room.
      await Promise.race([this.broker.lagAtMost(full.groupIds, full.max - 1), this.#halt]);
    }
  }

  /** Input records fed and not yet committed by the engine. */
  pendingInput(): number {
    return this.#pending(this.#bounds[0]!.groupIds);
  }

  /** Internal updates not yet processed plus outputs not yet passed to `onOutput`. */
  pendingDownstream(): number {
    return this.#pending(this.#bounds[1]!.groupIds);
  }

  /**
   * Resolves once every fed record is processed: inputs and internal updates consumed and
   * committed (so their outputs are acknowledged) on two consecutive checks, and every output
   * message passed to `onOutput`.
   */
  async drain(): Promise<void> {
    for (let quiet = 0; quiet < 2; ) {
      await Promise.race([sleep(IDLE_POLL_MS), this.#halt]);
      quiet = (await this.engine.idle()) ? quiet + 1 : 0;
    }
    // The output loop commits a message only once `onOutput` returned for it.
    await Promise.race([this.broker.caughtUp(OUTPUT_GROUP), this.#halt]);
  }

  /** Graceful stop of the engine; the store's content stays readable. */
  async stop(): Promise<void> {
    await this.engine.stop();
    this.#stopOutput.abort();
    await this.#outputLoop;
    await this.output.disconnect();
    await this.input.disconnect();
  }

  /** The first bound reached, if any (after throwing when the engine can no longer make room). */
  #full(): { readonly groupIds: readonly string[]; readonly max: number } | undefined {
    if (this.#halted) throw this.#halted.error;
    return this.#bounds.find((bound) => this.#pending(bound.groupIds) >= bound.max);
  }

  #pending(groupIds: readonly string[]): number {
    return this.broker.groupsLag(groupIds);
  }

  /** Passes outputs to `onOutput` as they come, and commits them so the broker drops them. */
  async #deliverOutputs(): Promise<void> {
    const { signal } = this.#stopOutput;
    while (!signal.aborted) {
      const batch = await this.output.consume(OUTPUT_BATCH, OUTPUT_WAIT_MS, signal);
      if (batch.length === 0) continue;
      for (const message of batch) {
        const delivered = this.onOutput(message);
        if (delivered instanceof Promise) await delivered;
      }
      await this.output.commit(nextOffsets(batch));
    }
  }
}

/** A bound of 0 would make `feed` wait forever: nothing is ever pending below 0. */
function positive(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`${name} must be a positive integer, got ${value}`);
  return value;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
