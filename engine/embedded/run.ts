import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import type { Writable } from 'node:stream';
import type { Logger } from 'pino';
import type { Config } from '../config/index.ts';
import type { EngineMetrics } from '../metrics/index.ts';
import { EmbeddedEngine } from './engine.ts';
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
  readonly onStarted?: (embedded: EmbeddedEngine) => void | Promise<void>;
  /** Called per input record appended, for progress reports. */
  readonly onInput?: (count: number) => void;
}

export interface EmbeddedResult {
  readonly inputRecords: number;
  readonly outputRecords: number;
  /** Still running, so `--serve` can answer from its store: call `embedded.stop()` when done. */
  readonly embedded: EmbeddedEngine;
}

/**
 * `streamfold run --embedded`: feeds an input file to an {@link EmbeddedEngine}, writes every
 * output message as a JSON line as it comes, and resolves once everything is drained. The file
 * is streamed and `feed` waits for the engine, so memory does not grow with the input.
 */
export async function runEmbedded(options: EmbeddedOptions): Promise<EmbeddedResult> {
  const sink = openSink(options.output);
  const keyOnly = options.config.processor.mode === 'key-only';
  let outputRecords = 0;
  const embedded = await EmbeddedEngine.start({
    config: options.config,
    logger: options.logger,
    ...(options.metrics ? { metrics: options.metrics } : {}),
    ...(options.partitions ? { partitions: options.partitions } : {}),
    onOutput: (message) => {
      outputRecords++;
      // A slower sink holds the outputs back in the broker, and from there `feed`.
      if (sink && !sink.write(`${formatOutputLine(message, keyOnly)}\n`)) return once(sink, 'drain');
      return undefined;
    },
  });
  try {
    await options.onStarted?.(embedded);
    let inputRecords = 0;
    for await (const record of readInputFile(options.input, embedded.inputTopics)) {
      await embedded.feed(record);
      options.onInput?.(++inputRecords);
    }
    await embedded.drain();
    await closeSink(sink);
    return { inputRecords, outputRecords, embedded };
  } catch (error) {
    // A bad input line (or a failed start of --serve) must not leave the engine running.
    await embedded.stop();
    await closeSink(sink);
    throw error;
  }
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
