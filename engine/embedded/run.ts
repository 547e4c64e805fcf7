import { createWriteStream } from 'node:fs';
import type { Writable } from 'node:stream';
import type { Logger } from 'pino';
import { MemoryBroker } from '../broker/memory/index.ts';
import type { BrokerConsumer } from '../broker/types.ts';
import type { Config } from '../config/index.ts';
import type { EngineMetrics } from '../metrics/index.ts';
import { deadLetterTopics } from '../runtime/clients.ts';
import { compileConfig } from '../runtime/compile.ts';
import { type RunningEngine, startEngine } from '../runtime/engine.ts';
import { MemoryStore } from '../store/index.ts';
import { readInputFile } from './input.ts';
import { formatOutputLine } from './output.ts';

export interface EmbeddedOptions {
  readonly config: Config;
  /** JSON-lines input file, `-` for stdin. */
  readonly input: string;
  /** JSON-lines output file, `-` for stdout, null to discard. */
  readonly output: string | null;
  readonly logger: Logger;
  readonly metrics?: EngineMetrics;
  /** Partitions of every in-process topic (default 4). */
  readonly partitions?: number;
  /** Called with the running engine before input is fed (the HTTP API of `--serve`). */
  readonly onStarted?: (engine: RunningEngine, store: MemoryStore) => void | Promise<void>;
  /** Called per input record appended, for progress reports. */
  readonly onInput?: (count: number) => void;
}

export interface EmbeddedResult {
  readonly inputRecords: number;
  readonly outputRecords: number;
  readonly engine: RunningEngine;
  readonly store: MemoryStore;
}

const OUTPUT_GROUP = 'streamfold.embedded.output';

/**
 * Embedded mode (`engine.md` §11): the same engine on an in-process broker and the in-memory
 * store. Feeds the input file, waits until every input and internal update is consumed and
 * committed, and writes every output message. The engine is left running (its store serves the
 * HTTP API of `--serve`): call `result.engine.stop()` when done.
 */
export async function runEmbedded(options: EmbeddedOptions): Promise<EmbeddedResult> {
  const compiled = compileConfig(options.config);
  const { config } = compiled;
  const partitions = options.partitions ?? 4;
  const outputTopic = config.producer.config.topic;
  const deadLetters = deadLetterTopics(config);
  const topics = new Set([
    ...compiled.topics.values(),
    config.processor.internalUpdates.config.topic,
    outputTopic,
    ...deadLetters.values(),
  ]);
  const broker = new MemoryBroker({ topics: Object.fromEntries([...topics].map((t) => [t, partitions])) });
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
  });
  await options.onStarted?.(engine, store);

  const reader = broker.consumer({ groupId: OUTPUT_GROUP });
  await reader.connect();
  reader.subscribe([outputTopic]);
  const sink = openSink(options.output);
  const keyOnly = config.processor.mode === 'key-only';
  let outputRecords = 0;
  const drainOutput = async (reader: BrokerConsumer) => {
    for (
      let batch = await reader.consume(10_000, 0);
      batch.length > 0;
      batch = await reader.consume(10_000, 0)
    ) {
      for (const message of batch) sink?.write(`${formatOutputLine(message, keyOnly)}\n`);
      outputRecords += batch.length;
      await reader.commit(lastOffsets(batch));
    }
  };

  const producer = broker.producer();
  await producer.connect();
  let inputRecords = 0;
  const consumerTopics = new Set(compiled.topics.values());
  for await (const record of readInputFile(options.input, consumerTopics)) {
    await producer.produce(record);
    options.onInput?.(++inputRecords);
  }

  // Drained: two consecutive idle observations, so a batch between the two checks is not missed.
  for (let quiet = 0; quiet < 2; ) {
    await drainOutput(reader);
    await new Promise((resolve) => setTimeout(resolve, 10));
    quiet = (await engine.idle()) ? quiet + 1 : 0;
  }
  await drainOutput(reader);
  await reader.disconnect();
  await closeSink(sink);
  return { inputRecords, outputRecords, engine, store };
}

function lastOffsets(batch: readonly { topic: string; partition: number; offset: number }[]) {
  const next = new Map<string, { topic: string; partition: number; offset: number }>();
  for (const m of batch)
    next.set(`${m.topic}/${m.partition}`, { topic: m.topic, partition: m.partition, offset: m.offset + 1 });
  return [...next.values()];
}

function openSink(output: string | null): Writable | null {
  if (output === null) return null;
  return output === '-' ? process.stdout : createWriteStream(output);
}

function closeSink(sink: Writable | null): Promise<void> {
  if (!sink || sink === process.stdout) return Promise.resolve();
  return new Promise((resolve, reject) =>
    sink.end((error?: Error | null) => (error ? reject(error) : resolve())),
  );
}
