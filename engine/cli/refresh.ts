import type { CliCommand } from '../../services/kit/cli-command.ts';
import { ConfigError } from '../config/index.ts';
import { progressReporter } from './progress.ts';
import { loadConfigOrReport, reportConfigError } from './report.ts';

export const refreshCommand: CliCommand = {
  name: 'refresh',
  summary: 're-emit the aggregate of every head record (full refresh / backfill)',
  usage: `Usage: streamfold refresh <config> [--head <node>]

Re-emits the current aggregate of every record of every head node (or of one head) in the
configured output mode. It reads the head records from MongoDB and enqueues one recompute per
record on the internal-updates topic; the running engine (streamfold run) emits them, in order
with live updates, so it is safe to run while the engine runs. Progress on stderr when it is a
terminal; a summary line at the end.

Options:
  --head <node>  only this head node
  -h, --help     show this help`,
  options: { head: { type: 'string' } },
  positionals: 1,
  async run({ positionals, values }, io) {
    const source = positionals[0] as string;
    const config = await loadConfigOrReport(source, io);
    if (typeof config === 'number') return config;
    const [
      { resolveSecrets },
      { compileConfig },
      { engineClients },
      { createMongoStore },
      { createKafkaBroker },
      { refreshHeads },
    ] = await Promise.all([
      import('../secrets/index.ts'),
      import('../runtime/compile.ts'),
      import('../runtime/clients.ts'),
      import('../runtime/mongo-store.ts'),
      import('../../operators/broker/kafka/index.ts'),
      import('../refresh/refresh.ts'),
    ]);
    const compiled = compileConfig(config);
    const head = values.head as string | undefined;
    if (head !== undefined && !compiled.graph.heads.includes(head)) {
      io.err(`streamfold refresh: "${head}" is not a head node (heads: ${compiled.graph.heads.join(', ')})`);
      return 2;
    }
    try {
      const secrets = await resolveSecrets(config);
      const store = createMongoStore(compiled, secrets.persistenceUrl);
      const producer = createKafkaBroker({ properties: {} }).producer({
        properties: engineClients(config, secrets).internalProducer,
      });
      const progress = progressReporter('head records');
      const started = performance.now();
      try {
        await store.open();
        await producer.connect();
        const { enqueued } = await refreshHeads({
          store,
          producer,
          internalTopic: config.processor.internalUpdates.config.topic,
          heads: head ? [head] : compiled.graph.heads,
          onProgress: (done, total) => progress.update(done, total),
        });
        progress.done();
        const seconds = (performance.now() - started) / 1000;
        io.err(
          `streamfold refresh: ${enqueued} head records enqueued in ${seconds.toFixed(2)} s (${Math.round(enqueued / Math.max(seconds, 1e-3))}/s)`,
        );
      } finally {
        await producer.flush(10_000).catch(() => undefined);
        await producer.disconnect();
        await store.close();
      }
      return 0;
    } catch (error) {
      if (error instanceof ConfigError) return reportConfigError(error, io, source);
      io.err(`streamfold refresh: ${(error as Error).message}`);
      return 1;
    }
  },
};
