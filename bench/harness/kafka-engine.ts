import pino from 'pino';
import { BehaviorSubject } from 'rxjs';
import type { EngineMetrics } from '../../engine/metrics/index.ts';
import { compileConfig } from '../../engine/runtime/compile.ts';
import { startEngine } from '../../engine/runtime/engine.ts';
import type { Store } from '../../engine/store/types.ts';
import type { Broker } from '../../operators/broker/types.ts';
import type { Workload } from '../workloads/index.ts';
import { benchConfig } from './config.ts';
import type { KafkaTarget, RunTopics } from './kafka-target.ts';

/**
 * The engine in Kafka mode as `streamfold run` starts it (`startEngine` on node-rdkafka, its
 * idempotent `acks=all` producers), on the benchmark's configuration with this run's topics and
 * `bootstrap.servers` as the only client property. Its input consumers start paused (the control
 * plane's switch), so group joins happen before the measured part.
 */
export async function startKafkaEngine(options: {
  readonly broker: Broker;
  readonly bootstrap: string;
  readonly workload: Workload;
  readonly topics: RunTopics;
  readonly runId: string;
  readonly store: (layout: ReturnType<typeof compileConfig>['layout']) => Store;
  readonly metrics: EngineMetrics;
}): Promise<KafkaTarget> {
  const { topics } = options;
  const config = benchConfig(options.workload.graph, (document) => {
    // Its own consumer groups per run (they are named after the config id, at most 16 characters).
    document.id = `b${options.runId}`;
    document.connections.main!.config = { 'bootstrap.servers': options.bootstrap };
    for (const [node, consumer] of Object.entries(document.consumers.config))
      (consumer as { topic: string }).topic = topics.inputs.get(node) as string;
    document.producer.config.topic = topics.output;
    document.processor.internalUpdates.config.topic = topics.internal;
  });
  const compiled = compileConfig(config);
  const properties = { 'bootstrap.servers': options.bootstrap };
  const paused = new BehaviorSubject(true);
  const engine = await startEngine({
    compiled,
    broker: options.broker,
    store: options.store(compiled.layout),
    logger: pino({ level: process.env.LOG_LEVEL ?? 'silent' }),
    metrics: options.metrics,
    clients: {
      consumer: () => properties,
      producer: properties,
      internalConsumer: properties,
      internalProducer: properties,
    },
    paused: () => paused,
  });
  const failed = engine.done.then(() => {
    throw new Error('the engine stopped');
  });
  failed.catch(() => undefined);
  return {
    ready: () => engine.ready(),
    start: () => paused.next(false),
    idle: () => engine.idle(),
    failed,
    stop: () => engine.stop(),
  };
}
