/**
 * A real engine (in-process broker, in-memory store) under a control plane at `address`. The
 * default configuration has two independent head nodes, so each input message yields exactly one
 * output message.
 */

import { randomBytes, randomUUID } from 'node:crypto';
import pino from 'pino';
import { parseConfig } from '../../../engine/config/index.ts';
import {
  type ControlPlane,
  createControlPlane,
  engineSnapshot,
  graphDescription,
} from '../../../engine/controlplane/index.ts';
import { createEngineMetrics } from '../../../engine/metrics/index.ts';
import { engineClients } from '../../../engine/runtime/clients.ts';
import { type CompiledConfig, compileConfig } from '../../../engine/runtime/compile.ts';
import { type RunningEngine, startEngine } from '../../../engine/runtime/engine.ts';
import { resolveSecrets } from '../../../engine/secrets/index.ts';
import { MemoryStore } from '../../../engine/store/index.ts';
import { createKafkaBroker } from '../../../operators/broker/kafka/index.ts';
import { MemoryBroker } from '../../../operators/broker/memory/index.ts';
import type { Broker, BrokerConsumer } from '../../../operators/broker/types.ts';

export const CONFIG = {
  id: 'cpEngine01',
  connections: { kafka: { type: 'kafka', config: { 'bootstrap.servers': '127.0.0.1:9' } } },
  consumers: {
    type: 'kafka',
    config: {
      customers: { topic: 'customers', connectionName: 'kafka', commitIntervalMs: 0 },
      products: { topic: 'products', connectionName: 'kafka', commitIntervalMs: 0 },
    },
  },
  producer: { type: 'kafka', config: { connectionName: 'kafka', topic: 'views' } },
  processor: {
    graph: {
      nodes: [
        { id: 'customers', edges: { in: [], out: [] } },
        { id: 'products', edges: { in: [], out: [] } },
      ],
      edges: [] as unknown[],
    },
    persistence: { type: 'mongodb', config: { url: 'mongodb://127.0.0.1:9' } },
    internalUpdates: { type: 'kafka', config: { topic: 'internal', connectionName: 'kafka' } },
  },
};

/** Customers with their orders (`customers.id = orders.customerId`): a graph with an edge to draw. */
export const ORDERS_CONFIG = {
  ...CONFIG,
  id: 'cpOrders01',
  consumers: {
    type: 'kafka',
    config: {
      customers: { topic: 'customers', connectionName: 'kafka', commitIntervalMs: 0 },
      orders: { topic: 'orders', connectionName: 'kafka', commitIntervalMs: 0 },
    },
  },
  processor: {
    ...CONFIG.processor,
    graph: {
      nodes: [
        { id: 'customers', edges: { in: [], out: ['customerOrders'] } },
        { id: 'orders', edges: { in: ['customerOrders'], out: [] } },
      ],
      edges: [{ id: 'customerOrders', filter: { $eq: [{ foreign: ['customerId'] }, { local: ['id'] }] } }],
    },
  },
};

/** A real Kafka cluster (from `startKafka`): the engine consumes and produces there. */
export interface KafkaTarget {
  readonly properties: Record<string, string>;
  topic(name: string): string;
}

export interface EngineHarnessOptions {
  readonly address: string;
  /** Default `CONFIG`. */
  readonly config?: object;
  /** Send the graph message (default true); false: an engine from before it existed. */
  readonly sendGraph?: boolean;
  readonly feedbackIntervalMs?: number;
  /** Default null: gated until a desired state. */
  readonly resumeAfterMs?: number;
  /** Default: the in-process broker. */
  readonly kafka?: KafkaTarget;
}

export interface EngineHarness {
  /** The configuration's id: `CONFIG.id`, or one of this run's own on a real cluster. */
  readonly engineId: string;
  readonly nodes: readonly string[];
  readonly broker: Broker;
  readonly engine: RunningEngine;
  readonly plane: ControlPlane;
  readonly outputs: Map<string, number>;
  /** The actual name of a config topic (unique per run on a real cluster). */
  topic(name: string): string;
  readOutputs(): Promise<number>;
  produce(topic: string, from: number, count: number): Promise<void>;
  consumed(node: string): Promise<number>;
  /** The engine's last log lines (info and up, or `LOG_LEVEL`), its Kafka clients' included. */
  recentLogs(): string;
  close(): Promise<void>;
}

export async function startEngineHarness(options: EngineHarnessOptions): Promise<EngineHarness> {
  const recent: string[] = [];
  const logger = pino(
    { level: process.env.LOG_LEVEL ?? 'info' },
    {
      write(line: string) {
        recent.push(line);
        if (recent.length > 60) recent.shift();
      },
    },
  );
  const { kafka } = options;
  const topic = (name: string) => kafka?.topic(name) ?? name;
  const compiled = compileConfig(
    parseConfig(JSON.stringify(onCluster(options.config ?? CONFIG, kafka))).config,
  );
  const nodes = [...compiled.topics.keys()];
  const { broker, clients, properties } = await brokerFor(compiled, kafka, logger);
  const metrics = createEngineMetrics({ defaultMetrics: false });
  const plane = createControlPlane({
    address: options.address,
    engineId: compiled.config.id,
    nodes,
    ...(options.sendGraph === false ? {} : { graph: graphDescription(compiled) }),
    feedbackIntervalMs: options.feedbackIntervalMs ?? 100,
    resumeAfterMs: options.resumeAfterMs ?? null,
    logger,
    registry: metrics.registry,
    backoff: { initialMs: 50, maxMs: 200 },
  });
  const engine = await startEngine({
    compiled,
    broker,
    store: new MemoryStore(compiled.layout),
    logger,
    clients,
    metrics,
    // Small batches, so that pauses fall between and during batches.
    maxBatchSize: 5,
    paused: (node) => plane.paused(node),
  });
  plane.start(engineSnapshot(engine, nodes));

  const reader: BrokerConsumer = broker.consumer({ groupId: `test-output-${randomUUID()}`, properties });
  await reader.connect();
  reader.subscribe([topic('views')]);
  const outputs = new Map<string, number>();
  const producer = broker.producer({ properties });
  await producer.connect();
  return {
    engineId: compiled.config.id,
    nodes,
    broker,
    engine,
    plane,
    outputs,
    topic,
    async readOutputs() {
      for (
        let batch = await reader.consume(1000, 20);
        batch.length > 0;
        batch = await reader.consume(1000, 0)
      ) {
        for (const m of batch) {
          if (m.value === null) continue;
          const key = String(m.key);
          outputs.set(key, (outputs.get(key) ?? 0) + 1);
        }
      }
      return [...outputs.values()].reduce((a, b) => a + b, 0);
    },
    async produce(name, from, count) {
      for (let id = from; id < from + count; id++) {
        const after = { id, kind: name };
        await producer.produce({
          topic: topic(name),
          key: Buffer.from(JSON.stringify({ id, kind: name })),
          value: Buffer.from(JSON.stringify({ op: 'c', before: null, after })),
        });
      }
    },
    async consumed(node) {
      const { values } = await metrics.consumed.get();
      return values.find((v) => v.labels.node === node)?.value ?? 0;
    },
    recentLogs: () => recent.join(''),
    async close() {
      await plane.close();
      await engine.stop();
      await reader.disconnect();
      await producer.disconnect();
    },
  };
}

/**
 * The configuration with its topics and connection on the cluster, when there is one, and an id
 * of its own: the engine's consumer groups are named after it (`streamfold.<id>.<node>`), and a
 * cluster is shared (by the suite's files, by two runs of the suite, by CI pipelines). Under a
 * fixed id, two runs were members of each other's groups: every start and stop of one rebalanced
 * the other's consumers, mid-test.
 */
function onCluster(config: object, kafka: KafkaTarget | undefined): object {
  if (!kafka) return config;
  const copy = structuredClone(config) as typeof CONFIG;
  copy.id = `cp${randomBytes(6).toString('hex')}`;
  copy.connections.kafka.config = kafka.properties as typeof copy.connections.kafka.config;
  for (const consumer of Object.values(copy.consumers.config)) consumer.topic = kafka.topic(consumer.topic);
  copy.producer.config.topic = kafka.topic(copy.producer.config.topic);
  copy.processor.internalUpdates.config.topic = kafka.topic(copy.processor.internalUpdates.config.topic);
  return copy;
}

async function brokerFor(compiled: CompiledConfig, kafka: KafkaTarget | undefined, logger: pino.Logger) {
  if (kafka) {
    const clients = engineClients(compiled.config, await resolveSecrets(compiled.config));
    const broker: Broker = createKafkaBroker({ properties: clients.producer, logger });
    return { broker, clients, properties: kafka.properties };
  }
  const topics = Object.fromEntries([...compiled.topics.values(), 'internal', 'views'].map((t) => [t, 2]));
  const none = {};
  return {
    broker: new MemoryBroker({ topics }) as Broker,
    clients: { consumer: () => none, producer: none, internalConsumer: none, internalProducer: none },
    properties: {},
  };
}
