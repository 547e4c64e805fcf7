/**
 * End to end: the engine (in-process broker, in-memory store) under a real grpc-js control plane.
 * Two independent head nodes, so each input message yields exactly one output message.
 */
import * as assert from 'uvu/assert';
import { test } from '../../support/suite.ts';
import { type EngineHarness, startEngineHarness } from './engine-harness.ts';
import { acks, feedbacks, sleep, startTestServer, type TestServer, waitFor } from './support.ts';

const NODES = ['customers', 'products'];

interface Harness extends EngineHarness {
  readonly server: TestServer;
}

async function startHarness(): Promise<Harness> {
  const server = await startTestServer();
  const engine = await startEngineHarness({ address: server.address, sendGraph: false });
  return {
    ...engine,
    server,
    async close() {
      await engine.close();
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
