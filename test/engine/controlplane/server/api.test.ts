/**
 * The control plane's state and JSON API with real engines (in-process broker, in-memory store)
 * connected over gRPC.
 */
import * as assert from 'uvu/assert';
import { test } from '../../../support/suite.ts';
import { CONFIG, ORDERS_CONFIG, startEngineHarness } from '../engine-harness.ts';
import { sleep, waitFor } from '../support.ts';
import { nodeOf, startConsole } from './support.ts';

const ENGINE = CONFIG.id;

test('feedback and graph appear; resume-all releases the gated engine; pause stops consumption and resume continues from the committed offset', async () => {
  const cp = await startConsole();
  const h = await startEngineHarness({ address: cp.grpcAddress });
  try {
    await h.produce('customers', 0, 10);
    await h.produce('products', 0, 10);
    const gated = await waitFor('the gated engine with its lag', async () => {
      const engine = await cp.engine(ENGINE);
      return nodeOf(engine, 'customers')?.lag === 10 && engine;
    });
    assert.ok(gated.gated);
    assert.is(gated.status, 'live');
    assert.equal(gated.graph?.heads, ['customers', 'products']);
    assert.equal(
      gated.nodes.map((n) => [n.node, n.topic, n.head, n.state]),
      [
        ['customers', 'customers', true, 'paused'],
        ['products', 'products', true, 'paused'],
      ],
    );
    assert.ok(gated.layout?.nodes.customers, 'the graph is laid out');
    assert.is(gated.instances.length, 1);

    const released = await cp.post('/api/resume-all');
    assert.is(released.status, 202);
    const [request] = released.body.requests as Array<{ requestId: string }>;
    assert.is((await cp.settled(request!.requestId)).status, 'accepted');
    await waitFor('20 outputs', async () => (await h.readOutputs()) === 20);
    await waitFor('lag 0 and offsets committed', async () => {
      const engine = await cp.engine(ENGINE);
      const customers = nodeOf(engine, 'customers');
      return (
        !engine?.gated && customers?.state === 'running' && customers.lag === 0 && customers.committed === 10
      );
    });

    const paused = await cp.post(`/api/engines/${ENGINE}/nodes/customers/pause`);
    assert.is(paused.status, 202);
    assert.is(paused.body.action, 'pause customers');
    assert.is((await cp.settled(String(paused.body.requestId))).status, 'accepted');
    await h.produce('customers', 10, 5);
    await h.produce('products', 10, 5);
    await waitFor('the paused node showing its lag', async () => {
      const customers = nodeOf(await cp.engine(ENGINE), 'customers');
      return customers?.state === 'paused' && customers.lag === 5 && customers.messagesPerSecond === 0;
    });
    await waitFor('the products outputs', async () => (await h.readOutputs()) === 25);
    await sleep(300); // time in which a wrongly running node would have consumed
    const customers = nodeOf(await cp.engine(ENGINE), 'customers');
    assert.is(customers?.committed, 10, 'offsets stop moving while paused');
    assert.is(await h.consumed('customers'), 10);
    assert.is(nodeOf(await cp.engine(ENGINE), 'products')?.state, 'running');

    const resumed = await cp.post(`/api/engines/${ENGINE}/nodes/customers/resume`);
    assert.is((await cp.settled(String(resumed.body.requestId))).status, 'accepted');
    await waitFor('30 outputs', async () => (await h.readOutputs()) === 30);
    await waitFor('committed offsets after resume', async () => {
      const after = nodeOf(await cp.engine(ENGINE), 'customers');
      return after?.committed === 15 && after.lag === 0;
    });
    assert.is(h.outputs.size, 30, 'every input once');
    assert.ok(
      [...h.outputs.values()].every((n) => n === 1),
      'nothing duplicated',
    );
    assert.is(await h.consumed('customers'), 15, 'nothing lost, nothing read twice');
    const history = nodeOf(await cp.engine(ENGINE), 'products')?.history ?? [];
    assert.ok(
      history.some((p) => p.messagesPerSecond > 0),
      'the sparkline saw the messages flow',
    );

    const sent = cp.logLines.find((l) => l.msg === `desired state sent: ${ENGINE} pause customers`);
    assert.is((sent?.by as { remoteAddress?: string })?.remoteAddress, '127.0.0.1', 'who is logged');
    assert.equal(sent?.nodes, [{ node: 'customers', state: 'NODE_STATE_PAUSED' }], 'and what');
  } finally {
    await h.close();
    await cp.close();
  }
});

test('pause and resume a whole engine', async () => {
  const cp = await startConsole();
  const h = await startEngineHarness({ address: cp.grpcAddress });
  try {
    await waitFor('the engine', () => cp.engine(ENGINE));
    const paused = await cp.post(`/api/engines/${ENGINE}/pause`);
    assert.is(paused.body.action, 'pause all nodes');
    assert.is((await cp.settled(String(paused.body.requestId))).status, 'accepted');
    const resumed = await cp.post(`/api/engines/${ENGINE}/resume`);
    assert.is((await cp.settled(String(resumed.body.requestId))).status, 'accepted');
    await waitFor('every node running', async () => {
      const engine = await cp.engine(ENGINE);
      return !engine?.gated && engine?.nodes.every((n) => n.state === 'running');
    });
  } finally {
    await h.close();
    await cp.close();
  }
});

test('an instance that rejects a desired state shows why; unknown engine, node or action answer 404', async () => {
  const cp = await startConsole();
  // Two instances of one engine id, one with a node the other lacks (a rolling deployment).
  const older = await startEngineHarness({ address: cp.grpcAddress });
  const newer = await startEngineHarness({
    address: cp.grpcAddress,
    config: { ...ORDERS_CONFIG, id: ENGINE },
  }).catch(async (error: unknown) => {
    await older.close();
    await cp.close();
    throw error;
  });
  try {
    await waitFor('both instances', async () => (await cp.engine(ENGINE))?.instances.length === 2);
    const { status, body } = await cp.post(`/api/engines/${ENGINE}/nodes/orders/pause`);
    assert.is(status, 202);
    const request = await cp.settled(String(body.requestId));
    assert.is(request.status, 'rejected');
    const reasons = request.answers.map((a) => a.ack?.reason ?? '').sort();
    assert.is(reasons[0], '', 'the newer instance accepted');
    assert.match(reasons[1]!, /unknown node "orders"/);
    assert.ok(
      cp.logLines.some((l) => l.msg === 'desired state rejected' && /unknown node/.test(String(l.reason))),
    );

    const missing = async (path: string, message: RegExp) => {
      const answer = await cp.post(path);
      assert.is(answer.status, 404, path);
      assert.is(answer.body.error, 'Not Found');
      assert.match(String(answer.body.message), message);
    };
    await missing('/api/engines/nobody/nodes/orders/pause', /no engine "nobody"/);
    await missing(`/api/engines/${ENGINE}/nodes/ghost/pause`, /has no node "ghost"/);
    await missing(`/api/engines/${ENGINE}/nodes/orders/stop`, /unknown action "stop"/);
    const unknownRequest = await fetch(`${cp.url}/api/requests/nope`);
    assert.is(unknownRequest.status, 404);
  } finally {
    await older.close();
    await newer.close();
    await cp.close();
  }
});

test.run();
