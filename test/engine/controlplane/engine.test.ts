/**
 * End to end: the engine (in-process broker, in-memory store) under a real grpc-js control plane.
 * Two independent head nodes, so each input message yields exactly one output message.
 */
import pino from 'pino';
import * as assert from 'uvu/assert';
import { MemoryBroker } from '../../../engine/broker/memory/index.ts';
import type { BrokerConsumer } from '../../../engine/broker/types.ts';
import { parseConfig } from '../../../engine/config/index.ts';
import { type ControlPlane, createControlPlane, engineSnapshot } from '../../../engine/controlplane/index.ts';
import { createEngineMetrics } from '../../../engine/metrics/index.ts';
import { compileConfig } from '../../../engine/runtime/compile.ts';
import { type RunningEngine, startEngine } from '../../../engine/runtime/engine.ts';
import { MemoryStore } from '../../../engine/store/index.ts';
import { test } from '../../support/suite.ts';
import { acks, feedbacks, sleep, startTestServer, type TestServer, waitFor } from './support.ts';

const CONFIG = {
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
      edges: [],
    },
    persistence: { type: 'mongodb', config: { url: 'mongodb://127.0.0.1:9' } },
    internalUpdates: { type: 'kafka', config: { topic: 'internal', connectionName: 'kafka' } },
  },
};
const NODES = ['customers', 'products'];

interface Harness {
  readonly server: TestServer;
  readonly broker: MemoryBroker;
  readonly engine: RunningEngine;
  readonly plane: ControlPlane;
  readonly outputs: Map<string, number>;
  readOutputs(): Promise<number>;
  produce(topic: string, from: number, count: number): Promise<void>;
  consumed(node: string): Promise<number>;
  close(): Promise<void>;
}

async function startHarness(): Promise<Harness> {
  const logger = pino({ level: 'warn' });
  const server = await startTestServer();
  const compiled = compileConfig(parseConfig(JSON.stringify(CONFIG)).config);
  const broker = new MemoryBroker({ topics: { customers: 2, products: 2, internal: 2, views: 2 } });
  const metrics = createEngineMetrics({ defaultMetrics: false });
  const plane = createControlPlane({
    address: server.address,
    engineId: CONFIG.id,
    nodes: NODES,
    feedbackIntervalMs: 100,
    resumeAfterMs: null,
    logger,
    registry: metrics.registry,
    backoff: { initialMs: 50, maxMs: 200 },
  });
  const none = {};
  const engine = await startEngine({
    compiled,
    broker,
    store: new MemoryStore(compiled.layout),
    logger,
    clients: { consumer: () => none, producer: none, internalConsumer: none, internalProducer: none },
    metrics,
    // Small batches, so that pauses fall between and during batches.
    maxBatchSize: 5,
    paused: (node) => plane.paused(node),
  });
  plane.start(engineSnapshot(engine, NODES));

  const reader: BrokerConsumer = broker.consumer({ groupId: 'test-output' });
  await reader.connect();
  reader.subscribe(['views']);
  const outputs = new Map<string, number>();
  const producer = broker.producer();
  await producer.connect();
  return {
    server,
    broker,
    engine,
    plane,
    outputs,
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
    async produce(topic, from, count) {
      for (let id = from; id < from + count; id++) {
        const after = { id, kind: topic };
        await producer.produce({
          topic,
          key: Buffer.from(JSON.stringify({ id, kind: topic })),
          value: Buffer.from(JSON.stringify({ op: 'c', before: null, after })),
        });
      }
    },
    async consumed(node) {
      const { values } = await metrics.consumed.get();
      return values.find((v) => v.labels.node === node)?.value ?? 0;
    },
    async close() {
      await plane.close();
      await engine.stop();
      await reader.disconnect();
      await producer.disconnect();
      await server.stop();
    },
  };
}

const lastFeedbackOf = (server: TestServer, node: string) => {
  const last = feedbacks(server)
    .at(-1)
    ?.event.nodes.find((n) => n.node === node);
  return (
    last && {
      ...last,
      lag: last.partitions.reduce((s, p) => s + p.lag, 0),
      committed: last.partitions.reduce((s, p) => s + Math.max(p.committedOffset, 0), 0),
    }
  );
};

function outputKeysOf(outputs: Map<string, number>, kind: string): Map<number, number> {
  const found = new Map<number, number>();
  for (const [key, count] of outputs) {
    const parsed = JSON.parse(key) as { id: number; kind: string };
    if (parsed.kind === kind) found.set(parsed.id, count);
  }
  return found;
}

function assertExactlyOnce(outputs: Map<string, number>, kind: string, count: number) {
  const found = outputKeysOf(outputs, kind);
  assert.equal(
    [...found.keys()].sort((a, b) => a - b),
    Array.from({ length: count }, (_, i) => i),
    `${kind}: every input once`,
  );
  assert.ok(
    [...found.values()].every((n) => n === 1),
    `${kind}: no duplicate output`,
  );
}

test('gated until a desired state; pause stops one node while the other continues; resume continues from the committed offset', async () => {
  const h = await startHarness();
  try {
    await h.produce('customers', 0, 10);
    await h.produce('products', 0, 10);
    await waitFor('gated feedback showing the lag', () => lastFeedbackOf(h.server, 'customers')?.lag === 10);
    await sleep(300);
    assert.is(await h.readOutputs(), 0, 'nothing processed while gated');
    assert.is(await h.consumed('customers'), 0);
    assert.ok(feedbacks(h.server).every((f) => f.event.gated));

    h.server.send({
      requestId: 'start',
      nodes: [
        { node: 'customers', state: 'NODE_STATE_RUNNING' },
        { node: 'products', state: 'NODE_STATE_RUNNING' },
      ],
    });
    await waitFor('20 outputs', async () => (await h.readOutputs()) === 20);
    await waitFor('feedback with lag 0 and committed offsets', () => {
      const c = lastFeedbackOf(h.server, 'customers');
      return c?.lag === 0 && c.committed === 10 && c.state === 'NODE_STATE_RUNNING';
    });
    assert.ok(
      feedbacks(h.server).some(
        (f) => (f.event.nodes.find((n) => n.node === 'products')?.messagesPerSecond ?? 0) > 0,
      ),
      'throughput seen while messages flowed',
    );

    h.server.send({ requestId: 'pause', nodes: [{ node: 'customers', state: 'NODE_STATE_PAUSED' }] });
    await waitFor('ack', () => acks(h.server).some((a) => a.requestId === 'pause' && a.accepted));
    await h.produce('customers', 10, 5);
    await h.produce('products', 10, 5);
    await waitFor(
      'the products outputs',
      async () => {
        await h.readOutputs();
        return outputKeysOf(h.outputs, 'products').size === 15;
      },
      10_000,
    );
    await sleep(400);
    await h.readOutputs();
    assert.is(outputKeysOf(h.outputs, 'customers').size, 10, 'paused node produced nothing');
    assert.is(await h.consumed('customers'), 10, 'paused node consumed nothing');
    await waitFor('feedback of the paused node', () => {
      const c = lastFeedbackOf(h.server, 'customers');
      return (
        c?.state === 'NODE_STATE_PAUSED' && c.lag === 5 && c.committed === 10 && c.messagesPerSecond === 0
      );
    });

    h.server.send({ requestId: 'resume', nodes: [{ node: 'customers', state: 'NODE_STATE_RUNNING' }] });
    await waitFor('30 outputs', async () => (await h.readOutputs()) === 30);
    await sleep(300);
    await h.readOutputs();
    assertExactlyOnce(h.outputs, 'customers', 15);
    assertExactlyOnce(h.outputs, 'products', 15);
    assert.is(await h.consumed('customers'), 15);
    await waitFor(
      'committed offsets after resume',
      () => lastFeedbackOf(h.server, 'customers')?.committed === 15,
    );
  } finally {
    await h.close();
  }
});

test('pausing while messages flow loses and duplicates nothing', async () => {
  const h = await startHarness();
  try {
    await waitFor('connection', () => h.server.connections() === 1);
    h.server.send({
      requestId: 'start',
      nodes: NODES.map((node) => ({ node, state: 'NODE_STATE_RUNNING' as const })),
    });
    await waitFor('ack', () => acks(h.server).length === 1);
    const producing = h.produce('customers', 0, 150);
    for (let i = 0; i < 8; i++) {
      await sleep(30);
      h.server.send({ requestId: `p${i}`, nodes: [{ node: 'customers', state: 'NODE_STATE_PAUSED' }] });
      await sleep(30);
      h.server.send({ requestId: `r${i}`, nodes: [{ node: 'customers', state: 'NODE_STATE_RUNNING' }] });
    }
    await producing;
    await waitFor('150 outputs', async () => (await h.readOutputs()) >= 150, 20_000);
    await sleep(300);
    await h.readOutputs();
    assertExactlyOnce(h.outputs, 'customers', 150);
    assert.is(await h.consumed('customers'), 150);
    assert.is(acks(h.server).filter((a) => a.accepted).length, 17);
  } finally {
    await h.close();
  }
});

test.run();
