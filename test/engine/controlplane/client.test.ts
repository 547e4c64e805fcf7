/** The control-plane client against a real grpc-js server on loopback. */
import { Registry } from 'prom-client';
import { firstValueFrom, type Observable } from 'rxjs';
import * as assert from 'uvu/assert';
import {
  type ControlPlane,
  createControlPlane,
  type EngineSample,
} from '../../../engine/controlplane/index.ts';
import type { Clock } from '../../../operators/clock.ts';
import { FakeClock } from '../../support/fake-clock.ts';
import { test } from '../../support/suite.ts';
import {
  acks,
  capturingLogger,
  feedbacks,
  freePort,
  sleep,
  startTestServer,
  type TestServer,
  waitFor,
} from './support.ts';

const NODES = ['orders', 'customers'];
const BACKOFF = { initialMs: 50, maxMs: 200 };

let rate = 0;
const source = async (): Promise<EngineSample> => ({
  windowMs: 1000,
  nodes: NODES.map((node, i) => ({
    node,
    messagesPerSecond: rate,
    partitions: [{ topic: `${node}-topic`, partition: i, committedOffset: 10, highWatermark: 15, lag: 5 }],
  })),
});

function controlPlane(
  address: string,
  overrides: {
    feedbackIntervalMs?: number;
    resumeAfterMs?: number | null;
    backoff?: typeof BACKOFF;
    clock?: Clock;
  } = {},
) {
  const { logger, lines } = capturingLogger();
  const registry = new Registry();
  const plane = createControlPlane({
    address,
    engineId: 'engine-0001',
    nodes: NODES,
    feedbackIntervalMs: overrides.feedbackIntervalMs ?? 200,
    resumeAfterMs: overrides.resumeAfterMs === undefined ? null : overrides.resumeAfterMs,
    logger,
    registry,
    backoff: overrides.backoff ?? BACKOFF,
    ...(overrides.clock ? { clock: overrides.clock } : {}),
  });
  return { plane, lines, registry };
}

const current = (o: Observable<boolean>) => firstValueFrom(o);
const states = async (plane: ControlPlane) =>
  Object.fromEntries(await Promise.all(NODES.map(async (n) => [n, await current(plane.paused(n))])));

async function metric(
  registry: Registry,
  name: string,
  labels: Record<string, string> = {},
): Promise<number> {
  const found = await registry.getSingleMetric(name)?.get();
  const value = found?.values.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l));
  return value?.value ?? 0;
}

const servers: TestServer[] = [];
const planes: ControlPlane[] = [];
async function setUp(overrides: Parameters<typeof controlPlane>[1] = {}) {
  const server = await startTestServer();
  servers.push(server);
  const made = controlPlane(server.address, overrides);
  planes.push(made.plane);
  return { server, ...made };
}
test.after.each(async () => {
  await Promise.all(planes.splice(0).map((p) => p.close()));
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

test('startup gating: every node paused until a desired state, then only the named nodes change', async () => {
  const { server, plane, registry } = await setUp();
  assert.equal(await states(plane), { orders: true, customers: true }, 'paused before start');
  plane.start(source);
  const [first] = await waitFor('a first feedback', () => feedbacks(server).length > 0 && feedbacks(server));
  assert.is(first!.event.gated, true);
  assert.equal(
    first!.event.nodes.map((n) => n.state),
    ['NODE_STATE_PAUSED', 'NODE_STATE_PAUSED'],
  );
  assert.equal(server.engineIds, ['engine-0001'], 'engine id sent as metadata');
  await sleep(300);
  assert.equal(
    await states(plane),
    { orders: true, customers: true },
    'still paused while connected without a desired state',
  );

  server.send({ requestId: 'go', nodes: [{ node: 'orders', state: 'NODE_STATE_RUNNING' }] });
  await waitFor('the ack', () => acks(server).length === 1);
  assert.equal(acks(server), [{ requestId: 'go', accepted: true, reason: '' }]);
  assert.equal(await states(plane), { orders: false, customers: true });
  const later = await waitFor('a feedback after the desired state', () =>
    feedbacks(server).find((f) => !f.event.gated),
  );
  assert.equal(
    later.event.nodes.map((n) => [n.node, n.state]),
    [
      ['orders', 'NODE_STATE_RUNNING'],
      ['customers', 'NODE_STATE_PAUSED'],
    ],
  );
  assert.is(
    await metric(registry, 'streamfold_controlplane_desired_states_total', { result: 'accepted' }),
    1,
  );
  assert.is(
    await metric(registry, 'streamfold_controlplane_desired_state_changes_total', {
      node: 'orders',
      state: 'running',
    }),
    1,
  );
  assert.is(await metric(registry, 'streamfold_controlplane_connected'), 1);
});

test('feedback cadence: never two events closer than feedbackInterval, contents follow the engine', async () => {
  const { server, plane, registry } = await setUp({ feedbackIntervalMs: 150 });
  rate = 0;
  plane.start(source);
  await waitFor('2 feedbacks', () => feedbacks(server).length >= 2);
  rate = 42.5;
  await waitFor('8 feedbacks', () => feedbacks(server).length >= 8);
  const events = feedbacks(server);
  const sentGaps = events.slice(1).map((e, i) => e.event.sentAtMs - events[i]!.event.sentAtMs);
  assert.ok(
    sentGaps.every((g) => g >= 150),
    `sent gaps ${sentGaps}`,
  );
  // Received times add delivery jitter (this process also runs the engine side, on a busy
  // machine): no burst (each gap well above half an interval) and the span is that of 150 ms gaps.
  const receivedGaps = events.slice(1).map((e, i) => e.at - events[i]!.at);
  assert.ok(
    receivedGaps.every((g) => g >= 75),
    `received gaps ${receivedGaps}`,
  );
  assert.ok(
    events.at(-1)!.at - events[0]!.at >= 150 * (events.length - 1) - 30,
    `received gaps ${receivedGaps}`,
  );
  assert.equal(
    events.map((e) => e.event.sequence),
    events.map((_, i) => i + 1),
  );
  assert.is(events[0]!.event.engineId, 'engine-0001');
  assert.ok(
    events.every((e) => e.event.instanceId === events[0]!.event.instanceId && e.event.instanceId !== ''),
  );
  assert.is(events[0]!.event.nodes[0]!.messagesPerSecond, 0);
  assert.is(events.at(-1)!.event.nodes[0]!.messagesPerSecond, 42.5);
  assert.equal(events.at(-1)!.event.nodes[1]!.partitions, [
    { topic: 'customers-topic', partition: 1, committedOffset: 10, highWatermark: 15, lag: 5 },
  ]);
  assert.ok((await metric(registry, 'streamfold_controlplane_feedback_sent_total')) >= 8);
});

test('malformed desired states are rejected with a logged reason and an ack; the stream survives', async () => {
  const { server, plane, lines, registry } = await setUp();
  plane.start(source);
  await waitFor('connection', () => server.connections() === 1);
  server.send({ requestId: 'r1', nodes: [{ node: 'ghost', state: 'NODE_STATE_PAUSED' }] });
  server.send({ requestId: 'r2', nodes: [{ node: 'orders', state: 'NODE_STATE_UNSPECIFIED' }] });
  server.send({ requestId: 'r3', nodes: [{ node: 'orders', state: 7 as never }] });
  server.send(Buffer.from([0xff, 0xff, 0xff, 0xff]));
  server.send({
    requestId: 'r5',
    nodes: [
      { node: 'orders', state: 'NODE_STATE_RUNNING' },
      { node: 'orders', state: 'NODE_STATE_PAUSED' },
    ],
  });
  await waitFor('5 acks', () => acks(server).length === 5);
  const rejected = acks(server);
  assert.ok(rejected.every((a) => !a.accepted));
  assert.equal(
    rejected.map((a) => a.requestId),
    ['r1', 'r2', 'r3', '', 'r5'],
  );
  assert.match(rejected[0]!.reason, /unknown node "ghost"/);
  assert.match(rejected[1]!.reason, /NODE_STATE_UNSPECIFIED/);
  assert.match(rejected[2]!.reason, /state 7/);
  assert.match(rejected[3]!.reason, /not a valid DesiredState message/);
  assert.match(rejected[4]!.reason, /listed twice/);
  const logged = lines.filter((l) => l.msg === 'desired state rejected');
  assert.is(logged.length, 5);
  assert.match(String(logged[0]!.reason), /unknown node "ghost"/);
  assert.equal(await states(plane), { orders: true, customers: true }, 'nothing applied, still gated');
  assert.is(
    await metric(registry, 'streamfold_controlplane_desired_states_total', { result: 'rejected' }),
    5,
  );

  server.send({ requestId: 'ok', nodes: [{ node: 'customers', state: 'NODE_STATE_RUNNING' }] });
  await waitFor('the valid one applied', async () => (await states(plane)).customers === false);
  assert.is(server.engineIds.length, 1, 'same stream: no reconnection');
  assert.is(await metric(registry, 'streamfold_controlplane_reconnects_total'), 0);
});

test('a truncated desired state is rejected: still gated, nodes paused, the stream stays open', async () => {
  const { server, plane, registry } = await setUp();
  plane.start(source);
  await waitFor('connection', () => server.connections() === 1);
  // Field 1 (request_id), length 5, one byte present.
  server.send(Buffer.from([0x0a, 0x05, 0x61]));
  const [ack] = await waitFor('the ack', () => acks(server).length === 1 && acks(server));
  assert.is(ack!.accepted, false);
  assert.match(ack!.reason, /not a valid DesiredState message \(DesiredState\.requestId: length 5 runs past/);
  const seenBefore = feedbacks(server).length;
  const next = await waitFor('a feedback after the rejection', () => feedbacks(server)[seenBefore]);
  assert.is(next.event.gated, true, 'still gated');
  assert.equal(await states(plane), { orders: true, customers: true });
  assert.is(server.engineIds.length, 1, 'same stream: no reconnection');
  assert.is(await metric(registry, 'streamfold_controlplane_reconnects_total'), 0);
});

test('server down from the start: resumeAfterMs resumes every node after the first failure', async () => {
  const address = `127.0.0.1:${await freePort()}`;
  const { plane, lines, registry } = controlPlane(address, { resumeAfterMs: 400 });
  planes.push(plane);
  const started = Date.now();
  plane.start(source);
  assert.equal(await states(plane), { orders: true, customers: true });
  // Polled from the start: a release before resumeAfterMs would be seen early. The bound is for
  // a loaded machine.
  await waitFor('release', async () => (await states(plane)).orders === false, 10_000);
  const elapsed = Date.now() - started;
  assert.ok(elapsed >= 400, `released after ${elapsed} ms`);
  assert.equal(await states(plane), { orders: false, customers: false });
  assert.ok(
    lines.some((l) => l.msg === 'no desired state received within resumeAfterMs: resuming all nodes'),
  );
  assert.is(
    await metric(registry, 'streamfold_controlplane_desired_state_changes_total', {
      node: 'customers',
      cause: 'resume-after',
    }),
    1,
  );
  assert.ok((await metric(registry, 'streamfold_controlplane_reconnects_total')) >= 2, 'keeps reconnecting');
  assert.is(await metric(registry, 'streamfold_controlplane_connected'), 0);
});

test('resumeAfterMs releases exactly on time when timers fire early (Node under load)', async () => {
  const clock = new FakeClock({ firesEarlyMs: 1 });
  // Retries far beyond the release: only the release timer can open the gate in time.
  const backoff = { initialMs: 10_000_000, maxMs: 10_000_000 };
  const address = `127.0.0.1:${await freePort()}`;
  const { plane, lines } = controlPlane(address, { resumeAfterMs: 15_000, backoff, clock });
  planes.push(plane);
  plane.start(source);
  await waitFor('the first failure', () =>
    lines.some((l) => String(l.msg).startsWith('control plane stream lost')),
  );
  const failedAt = clock.now();
  await clock.advance(14_999);
  assert.equal(await states(plane), { orders: true, customers: true }, 'not before resumeAfterMs');
  await clock.advance(1);
  assert.equal(
    await states(plane),
    { orders: false, customers: false },
    `released ${clock.now() - failedAt} ms after the failure`,
  );
});

test('resumeAfterMs null: stays gated while the server is down, connects once it is up', async () => {
  const port = await freePort();
  const { plane, registry } = controlPlane(`127.0.0.1:${port}`, { resumeAfterMs: null });
  planes.push(plane);
  plane.start(source);
  await waitFor(
    'three reconnects',
    async () => (await metric(registry, 'streamfold_controlplane_reconnects_total')) >= 3,
    10_000,
  );
  assert.equal(await states(plane), { orders: true, customers: true }, 'still gated');
  const server = await startTestServer(port);
  servers.push(server);
  const [first] = await waitFor(
    'feedback once the server is up',
    () => feedbacks(server).length > 0 && feedbacks(server),
    3000,
  );
  assert.is(first!.event.gated, true);
  server.send({ requestId: 'go', nodes: [{ node: 'orders', state: 'NODE_STATE_RUNNING' }] });
  await waitFor('resumed', async () => (await states(plane)).orders === false);
});

test('a desired state before the release time cancels resumeAfterMs', async () => {
  const { server, plane } = await setUp({ resumeAfterMs: 300 });
  plane.start(source);
  await waitFor('connection', () => server.connections() === 1);
  server.send({ requestId: 'hold', nodes: [] });
  await waitFor('ack', () => acks(server).length === 1);
  await server.stop();
  await sleep(600);
  assert.equal(
    await states(plane),
    { orders: true, customers: true },
    'the empty desired state ended gating: no fallback',
  );
});

test('reconnect after the server restarts; a lost channel never pauses running nodes', async () => {
  const { server, plane, registry } = await setUp({ feedbackIntervalMs: 300 });
  plane.start(source);
  await waitFor('connection', () => server.connections() === 1);
  server.send({ requestId: 'go', nodes: [{ node: 'orders', state: 'NODE_STATE_RUNNING' }] });
  await waitFor('resumed', async () => (await states(plane)).orders === false);
  await waitFor('2 feedbacks', () => feedbacks(server).length >= 2);

  await server.stop();
  await waitFor(
    'disconnected',
    async () => (await metric(registry, 'streamfold_controlplane_connected')) === 0,
  );
  await sleep(300);
  assert.equal(await states(plane), { orders: false, customers: true }, 'unchanged while disconnected');
  const before = feedbacks(server).length;

  await server.restart();
  await waitFor('reconnected', () => server.connections() === 1);
  await waitFor('feedback on the new stream', () => feedbacks(server).length > before + 1);
  assert.is(server.engineIds.length, 2);
  const events = feedbacks(server);
  const gaps = events.slice(1).map((e, i) => e.event.sentAtMs - events[i]!.event.sentAtMs);
  assert.ok(
    gaps.every((g) => g >= 300),
    `gaps across the reconnection ${gaps}`,
  );
  assert.equal(
    events.map((e) => e.event.sequence),
    events.map((_, i) => i + 1),
    'sequence continues across streams (no event lost once written)',
  );
  assert.is(await metric(registry, 'streamfold_controlplane_connected'), 1);
  assert.ok((await metric(registry, 'streamfold_controlplane_reconnects_total')) >= 1);
  server.send({ requestId: 'stop', nodes: [{ node: 'orders', state: 'NODE_STATE_PAUSED' }] });
  await waitFor('paused through the new stream', async () => (await states(plane)).orders === true);
});

test('close ends the stream and stops feedback and reconnection', async () => {
  const { server, plane, registry } = await setUp({ feedbackIntervalMs: 100 });
  plane.start(source);
  await waitFor('connection', () => server.connections() === 1);
  await plane.close();
  await waitFor('the server saw the stream end', () => server.connections() === 0);
  const count = feedbacks(server).length;
  await sleep(400);
  assert.is(feedbacks(server).length, count);
  assert.is(server.engineIds.length, 1, 'no reconnection after close');
  assert.is(await metric(registry, 'streamfold_controlplane_connected'), 0);
  await plane.close();
});

test('close while the server is unreachable cancels the retries and the release timer', async () => {
  const port = await freePort();
  const { plane, lines } = controlPlane(`127.0.0.1:${port}`, { resumeAfterMs: 300 });
  plane.start(source);
  await sleep(100);
  await plane.close();
  const server = await startTestServer(port);
  servers.push(server);
  await sleep(600);
  assert.is(server.connections(), 0);
  assert.equal(await states(plane), { orders: true, customers: true });
  assert.not.ok(lines.some((l) => String(l.msg).includes('resuming all nodes')));
});

test('paused() of a node the engine does not have is a wiring error', () => {
  const { plane } = controlPlane('127.0.0.1:1');
  assert.throws(() => plane.paused('nope'), /unknown node "nope"/);
});

test.run();
