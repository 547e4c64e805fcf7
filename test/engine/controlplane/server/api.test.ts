/**
 * The control plane's state and JSON API with real engines (in-process broker, in-memory store)
 * connected over gRPC.
 */
import * as assert from 'uvu/assert';
import { test } from '../../../support/suite.ts';
import { CONFIG, ORDERS_CONFIG, startEngineHarness } from '../engine-harness.ts';
import { freePort, waitFor } from '../support.ts';
import { pauseResumeScenario } from './scenario.ts';
import { startConsole, withEngine } from './support.ts';

const ENGINE = CONFIG.id;

test('feedback and graph appear; resume-all releases the gated engine; pause stops consumption and resume continues from the committed offset', async () => {
  await withEngine({}, async (cp, h) => {
    await pauseResumeScenario(cp, h);
  });
});

test('pause and resume a whole engine', async () => {
  await withEngine({}, async (cp) => {
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
  });
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

test('an engine that could not reach the control plane at first shows when resumeAfterMs releases it', async () => {
  const port = await freePort();
  const h = await startEngineHarness({ address: `127.0.0.1:${port}`, resumeAfterMs: 120_000 });
  const failedAt = Date.now();
  const reconnects = () =>
    h.engine.context.metrics.registry.getSingleMetricAsString('streamfold_controlplane_reconnects_total');
  await waitFor('a failed connection', async () => / [1-9]\d*$/m.test(await reconnects()));
  const cp = await startConsole({ grpcPort: port });
  try {
    const engine = await waitFor('the gated engine', async () => {
      const found = await cp.engine(ENGINE);
      return found?.releaseAtMs && found;
    });
    assert.ok(engine.gated);
    assert.ok(
      engine.releaseAtMs! > failedAt + 110_000 && engine.releaseAtMs! <= Date.now() + 120_000,
      `released about 120 s after the first failure (${engine.releaseAtMs! - failedAt} ms)`,
    );
    assert.is(engine.instances[0]?.releaseAtMs, engine.releaseAtMs);
    const released = await cp.post('/api/resume-all');
    const [request] = released.body.requests as Array<{ requestId: string }>;
    assert.is((await cp.settled(request!.requestId)).status, 'accepted');
    await waitFor('no longer gated', async () => {
      const after = await cp.engine(ENGINE);
      return after && !after.gated && after.releaseAtMs === null;
    });
  } finally {
    await h.close();
    await cp.close();
  }
});

test.run();
