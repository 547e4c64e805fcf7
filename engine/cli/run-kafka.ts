import type { Logger } from 'pino';
import { createKafkaBroker } from '../../operators/broker/kafka/index.ts';
import type { CliIo } from '../../services/kit/cli-command.ts';
import type { Config } from '../config/index.ts';
import { createControlPlane, engineSnapshot, graphDescription } from '../controlplane/index.ts';
import { createEngineMetrics } from '../metrics/index.ts';
import { deadLetterTopics, engineClients, topicsOnConnection } from '../runtime/clients.ts';
import { compileConfig } from '../runtime/compile.ts';
import { startEngine } from '../runtime/engine.ts';
import { createMongoStore } from '../runtime/mongo-store.ts';
import { resolveSecrets } from '../secrets/index.ts';
import { serveApi } from './serve-api.ts';

/** How long a graceful stop may take before the process gives up and exits 1. */
const STOP_TIMEOUT_MS = 30_000;

/**
 * `streamfold run <config>`: Kafka and MongoDB, until SIGTERM/SIGINT. Fails fast (exit 1, clear
 * message) when a secret, the broker, a topic or MongoDB is missing; a pipeline failure stops
 * the engine and exits 1 (offsets are committed only for finished work, so a restart resumes).
 */
export async function runKafkaMode(config: Config, logger: Logger, io: CliIo): Promise<number> {
  const secrets = await resolveSecrets(config);
  const compiled = compileConfig(config);
  const store = createMongoStore(compiled, secrets.persistenceUrl);
  const metrics = createEngineMetrics();
  const clients = engineClients(config, secrets);
  // Startup checks (metadata) go through the output producer's connection.
  const connection = config.producer.config.connectionName;
  const nodes = [...compiled.topics.keys()];
  const controlPlane = config.controlPlane
    ? createControlPlane({
        address: config.controlPlane.grpcAddress,
        engineId: config.id,
        nodes,
        graph: graphDescription(compiled),
        feedbackIntervalMs: config.controlPlane.feedbackInterval,
        resumeAfterMs: config.controlPlane.resumeAfterMs,
        logger,
        registry: metrics.registry,
      })
    : null;
  const engine = await startEngine({
    compiled,
    broker: createKafkaBroker({ properties: clients.producer, logger, registry: metrics.registry }),
    requiredTopics: topicsOnConnection(config, connection),
    store,
    logger,
    metrics,
    clients,
    deadLetterTopics: deadLetterTopics(config),
    ...(controlPlane ? { paused: (node: string) => controlPlane.paused(node) } : {}),
  });
  controlPlane?.start(engineSnapshot(engine, nodes));
  const shutdown = async () => {
    await controlPlane?.close();
    await engine.stop();
  };
  const server = await serveApi(engine, store, metrics.registry, logger, shutdown).catch(
    async (error: unknown) => {
      // E.g. the port is taken: stop the running engine too, or it would run on without its API.
      await shutdown();
      throw error;
    },
  );
  logger.info(
    {
      id: config.id,
      nodes: compiled.graph.topologicalOrder,
      heads: compiled.graph.heads,
      topics: Object.fromEntries(compiled.topics),
      output: config.producer.config.topic,
      internal: config.processor.internalUpdates.config.topic,
      mode: config.processor.mode,
      controlPlane: config.controlPlane?.grpcAddress ?? null,
      http: `${config.server.ip}:${server.port}${config.server.apiPrefix}`,
    },
    `streamfold ${config.id} running: ${compiled.graph.topologicalOrder.length} nodes, heads ${compiled.graph.heads.join(', ')}, mode ${config.processor.mode}`,
  );

  const exitCode = await new Promise<number>((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      logger.info({ signal }, 'stopping: finishing in-flight batches, committing, closing');
      resolve(0);
    };
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
    engine.done.catch((error: unknown) => {
      io.err(`streamfold run: engine stopped: ${(error as Error).message}`);
      resolve(1);
    });
  });
  const timer = setTimeout(() => {
    // A stop that hangs leaves client handles open: give up and exit, nothing more will finish.
    logger.error(`graceful stop did not finish within ${STOP_TIMEOUT_MS} ms; exiting`);
    process.exit(1);
  }, STOP_TIMEOUT_MS);
  timer.unref();
  await server.close();
  clearTimeout(timer);
  return exitCode;
}
