import type { Logger } from 'pino';
import { MemoryBroker } from '../broker/memory/index.ts';
import type { BrokerConsumer, BrokerProducer, ConsumedMessage, ProducerRecord } from '../broker/types.ts';
import type { Config } from '../config/index.ts';
import type { EngineMetrics } from '../metrics/index.ts';
import { deadLetterTopics } from '../runtime/clients.ts';
import { compileConfig } from '../runtime/compile.ts';
import { type RunningEngine, startEngine } from '../runtime/engine.ts';
import { MemoryStore } from '../store/index.ts';

export interface EmbeddedEngineOptions {
  readonly config: Config;
  readonly logger: Logger;
  readonly metrics?: EngineMetrics;
  /** Partitions of every in-process topic (default 4). */
  readonly partitions?: number;
  /** Receives every output message, in order per partition. */
  readonly onOutput?: (message: ConsumedMessage) => void;
  /** Largest input batch (default 1000). */
  readonly maxBatchSize?: number;
  /** Batches read ahead per consumer (default `EMBEDDED_MAX_IN_FLIGHT`). */
  readonly maxInFlight?: number;
}

/**
 * Read-ahead of the embedded consumers. In process, a batch in flight costs no I/O, only its
 * memory; and the internal-updates pipeline holds its batches for the compression window, so
 * with the runtime's default of 2 it recomputes at most 2 batches per window (W1 bench:
 * 8.6k -> 23k input events/s with 16; 32 and 64 bring nothing more).
 */
export const EMBEDDED_MAX_IN_FLIGHT = 16;

const OUTPUT_GROUP = 'streamfold.embedded.output';
const IDLE_POLL_MS = 5;

/**
 * The engine on an in-process broker and the in-memory store (`engine.md` §11): the same
 * runtime, graph, filters, modes and internal updates as on Kafka and MongoDB. Feed records,
 * `drain()` until everything fed is processed and its output delivered, then `stop()`.
 */
export class EmbeddedEngine {
  private constructor(
    readonly engine: RunningEngine,
    readonly store: MemoryStore,
    readonly broker: MemoryBroker,
    private readonly input: BrokerProducer,
    private readonly output: BrokerConsumer,
    private readonly onOutput: (message: ConsumedMessage) => void,
  ) {}

  /** Topics the engine consumes (`consumers.config.*.topic`). */
  get inputTopics(): ReadonlySet<string> {
    return new Set(this.engine.compiled.topics.values());
  }

  static async start(options: EmbeddedEngineOptions): Promise<EmbeddedEngine> {
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
    const broker = new MemoryBroker({ topics: Object.fromEntries(topics.map((t) => [t, partitions])) });
    const store = new MemoryStore(compiled.layout);
    const none = {};
    const engine = await startEngine({
      compiled,
      broker,
      store,
      logger: options.logger,
      clients: { consumer: () => none, producer: none, internalConsumer: none, internalProducer: none },
      deadLetterTopics: deadLetters,
      ...(options.metrics ? { metrics: options.metrics } : {}),
      ...(options.maxBatchSize ? { maxBatchSize: options.maxBatchSize } : {}),
      maxInFlight: options.maxInFlight ?? EMBEDDED_MAX_IN_FLIGHT,
    });
    const output = broker.consumer({ groupId: OUTPUT_GROUP });
    await output.connect();
    output.subscribe([config.producer.config.topic]);
    const input = broker.producer();
    await input.connect();
    return new EmbeddedEngine(engine, store, broker, input, output, options.onOutput ?? (() => {}));
  }

  /** Appends one record to an input topic (acknowledged by the in-process broker). */
  async feed(record: ProducerRecord): Promise<void> {
    await this.input.produce(record);
  }

  /**
   * Resolves once every fed record is processed: inputs and internal updates consumed and
   * committed (so their outputs are acknowledged) on two consecutive checks, and every output
   * message passed to `onOutput`.
   */
  async drain(): Promise<void> {
    // A failed engine never becomes idle (its offsets stay uncommitted): report the failure.
    let failure: { error: unknown } | undefined;
    this.engine.done.catch((error: unknown) => {
      failure = { error };
    });
    for (let quiet = 0; quiet < 2; ) {
      if (failure) throw failure.error;
      await this.readOutput();
      await new Promise((resolve) => setTimeout(resolve, IDLE_POLL_MS));
      quiet = (await this.engine.idle()) ? quiet + 1 : 0;
    }
    await this.readOutput();
  }

  /** Graceful stop of the engine; the store's content stays readable. */
  async stop(): Promise<void> {
    await this.engine.stop();
    await this.output.disconnect();
    await this.input.disconnect();
  }

  private async readOutput(): Promise<void> {
    for (
      let batch = await this.output.consume(10_000, 0);
      batch.length > 0;
      batch = await this.output.consume(10_000, 0)
    ) {
      for (const message of batch) this.onOutput(message);
      const next = new Map<string, { topic: string; partition: number; offset: number }>();
      for (const m of batch)
        next.set(`${m.partition}`, { topic: m.topic, partition: m.partition, offset: m.offset + 1 });
      await this.output.commit([...next.values()]);
    }
  }
}
