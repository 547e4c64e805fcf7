/**
 * The control plane steering one real engine (`CONFIG`, gated at start): feedback and graph
 * appear, resume-all releases it, a paused node stops consuming (offsets stop moving, nothing
 * lost), and resumed it continues from its committed offset. Shared by the in-process broker's
 * test and the real broker's.
 */
import * as assert from 'uvu/assert';
import type { EngineHarness } from '../engine-harness.ts';
import { sleep, waitFor as waitForever } from '../support.ts';
import { type Console, nodeOf } from './support.ts';

export async function pauseResumeScenario(cp: Console, h: EngineHarness, timeoutMs = 20_000): Promise<void> {
  const ENGINE = h.engineId;
  /** A bounded wait; timed out, it tells what it last saw and the engine's last log lines. */
  const waitFor = async <T>(what: string, check: () => T | Promise<T>, seen?: () => string) => {
    try {
      return await waitForever(what, check, timeoutMs);
    } catch (error) {
      const last = seen ? ` (last seen: ${seen()})` : '';
      throw new Error(`${(error as Error).message}${last}; the engine's last log lines:
${h.recentLogs()}`);
    }
  };
  const outputsSeen = () => {
    const twice = [...h.outputs].filter(([, n]) => n > 1).map(([key]) => key);
    const total = [...h.outputs.values()].reduce((a, b) => a + b, 0);
    return `${total} outputs of ${h.outputs.size} keys${twice.length > 0 ? `, more than once: ${twice.join(' ')}` : ''}`;
  };
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
      ['customers', h.topic('customers'), true, 'paused'],
      ['products', h.topic('products'), true, 'paused'],
    ],
  );
  assert.ok(gated.layout?.nodes.customers, 'the graph is laid out');
  assert.is(gated.instances.length, 1);

  const released = await cp.post('/api/resume-all');
  assert.is(released.status, 202);
  const [request] = released.body.requests as Array<{ requestId: string }>;
  assert.is((await cp.settled(request!.requestId)).status, 'accepted');
  await waitFor('20 outputs', async () => (await h.readOutputs()) === 20, outputsSeen);
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
  await waitFor('the products outputs', async () => (await h.readOutputs()) === 25, outputsSeen);
  await sleep(300); // time in which a wrongly running node would have consumed
  const customers = nodeOf(await cp.engine(ENGINE), 'customers');
  assert.is(customers?.committed, 10, 'offsets stop moving while paused');
  assert.is(await h.consumed('customers'), 10);
  assert.is(nodeOf(await cp.engine(ENGINE), 'products')?.state, 'running');

  const resumed = await cp.post(`/api/engines/${ENGINE}/nodes/customers/resume`);
  assert.is((await cp.settled(String(resumed.body.requestId))).status, 'accepted');
  await waitFor('30 outputs', async () => (await h.readOutputs()) === 30, outputsSeen);
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
}
