import type { Logger } from 'pino';
import type { CliCommand, CliIo } from '../../services/kit/cli-command.ts';
import { type Config, ConfigError } from '../config/index.ts';
import { createLogger } from '../logging/logger.ts';
import { progressReporter } from './progress.ts';
import { loadConfigOrReport, reportConfigError } from './report.ts';
import { runSummary } from './summary.ts';

export const runCommand: CliCommand = {
  name: 'run',
  summary: 'run the engine (Kafka + MongoDB, or --embedded on an input file)',
  usage: `Usage: streamfold run <config> [options]

Runs the aggregation engine of <config> until SIGTERM: consumes the Kafka topics of its consumers,
keeps state in MongoDB, produces aggregated output, serves the HTTP API on server.ip:server.port.

With --embedded, Kafka is replaced by an in-process broker and MongoDB by the in-memory store
(same graph, filters, modes and internal updates); the input file is processed, output written,
and the command exits 0 once everything is drained.

Options:
  --embedded           in-process broker and in-memory store
  --input <file>       embedded: JSON lines {"topic","key","value"} to feed ("-": stdin)
  --output <file>      embedded: where output lines go ("-": stdout; default: discard)
  --serve              embedded: keep the HTTP API up after draining, until SIGTERM
  --partitions <n>     embedded: partitions per in-process topic (default 4)
  --log-level <level>  trace|debug|info|warn|error (default: LOG_LEVEL or info)
  -h, --help           show this help`,
  options: {
    embedded: { type: 'boolean' },
    input: { type: 'string' },
    output: { type: 'string' },
    serve: { type: 'boolean' },
    partitions: { type: 'string' },
    'log-level': { type: 'string' },
  },
  positionals: 1,
  async run({ positionals, values }, io) {
    const source = positionals[0] as string;
    const logger = createLogger(values['log-level'] as string | undefined);
    const config = await loadConfigOrReport(source, io);
    if (typeof config === 'number') return config;
    try {
      // Loaded on demand: validate/schema/explain need neither librdkafka nor the MongoDB driver.
      if (!values.embedded) return await (await import('./run-kafka.ts')).runKafkaMode(config, logger, io);
      if (typeof values.input !== 'string') {
        io.err('streamfold run: --embedded needs --input <file> (JSON lines; "-" for stdin)');
        return 2;
      }
      const partitions = values.partitions === undefined ? 4 : Number(values.partitions);
      if (!Number.isInteger(partitions) || partitions < 1 || partitions > 1024) {
        io.err(`streamfold run: --partitions must be an integer 1..1024 (got ${values.partitions})`);
        return 2;
      }
      return await embedded(config, logger, io, {
        input: values.input,
        output: typeof values.output === 'string' ? values.output : null,
        serve: values.serve === true,
        partitions,
      });
    } catch (error) {
      if (error instanceof ConfigError) return reportConfigError(error, io, source);
      // Startup and input failures are the user's to fix: the message, no stack (it is logged).
      logger.debug({ err: error }, 'run failed');
      io.err(`streamfold run: ${(error as Error).message}`);
      return 1;
    }
  },
};

async function embedded(
  config: Config,
  logger: Logger,
  io: CliIo,
  options: { input: string; output: string | null; serve: boolean; partitions: number },
): Promise<number> {
  const [{ runEmbedded }, { createEngineMetrics }, { serveApi }] = await Promise.all([
    import('../embedded/run.ts'),
    import('../metrics/index.ts'),
    import('./serve-api.ts'),
  ]);
  if (config.controlPlane) {
    // Gating would hold the drain until a desired state arrives: embedded runs are one-shot.
    io.err('streamfold: embedded mode runs without the control plane (controlPlane is ignored)');
  }
  const metrics = createEngineMetrics();
  const progress = progressReporter('input records');
  const started = performance.now();
  let server: { close(): Promise<void> } | undefined;
  const result = await runEmbedded({
    config,
    input: options.input,
    output: options.output,
    logger,
    metrics,
    partitions: options.partitions,
    onInput: progress.update,
    onStarted: async ({ engine, store }) => {
      if (options.serve) server = await serveApi(engine, store, metrics.registry, logger);
    },
  }).catch(async (error: unknown) => {
    await server?.close(); // --serve must not keep a bad run's process alive
    throw error;
  });
  progress.done();
  const seconds = (performance.now() - started) / 1000;
  io.err(
    runSummary({
      inputRecords: result.inputRecords,
      outputRecords: result.outputRecords,
      seconds,
      compressionWindowMs: config.processor.internalUpdates.config.compressionWindowMs,
      nodes: config.processor.graph.nodes.length,
    }),
  );
  if (!options.serve) {
    await result.embedded.stop();
    return 0;
  }
  io.err(`streamfold: serving the HTTP API until SIGTERM`);
  await new Promise<void>((resolve) => {
    const onSignal = () => resolve();
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
  });
  await server?.close();
  await result.embedded.stop();
  return 0;
}
