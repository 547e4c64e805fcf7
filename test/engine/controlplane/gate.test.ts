import * as assert from 'uvu/assert';
import { NodeGate } from '../../../engine/controlplane/gate.ts';
import { test } from '../../support/suite.ts';

const desired = (entries: Record<string, 'running' | 'paused'>) => new Map(Object.entries(entries));
const states = (gate: NodeGate) => Object.fromEntries([...gate.nodes].map((n) => [n, gate.state(n)]));

test('every node starts paused and gated', () => {
  const gate = new NodeGate(['a', 'b'], 1000);
  assert.ok(gate.gated);
  assert.equal(states(gate), { a: 'paused', b: 'paused' });
});

test('a desired state ends gating, changes the named nodes and leaves the others as they are', () => {
  const gate = new NodeGate(['a', 'b', 'c'], null);
  assert.equal(gate.applyDesired(desired({ a: 'running' })), [{ node: 'a', state: 'running' }]);
  assert.not.ok(gate.gated);
  assert.equal(states(gate), { a: 'running', b: 'paused', c: 'paused' });
  assert.equal(gate.applyDesired(desired({ b: 'running', a: 'running' })), [{ node: 'b', state: 'running' }]);
  assert.equal(gate.applyDesired(desired({ a: 'paused' })), [{ node: 'a', state: 'paused' }]);
  assert.equal(states(gate), { a: 'paused', b: 'running', c: 'paused' });
});

test('an empty desired state ends gating without changing any node', () => {
  const gate = new NodeGate(['a'], 100);
  assert.equal(gate.applyDesired(new Map()), []);
  assert.not.ok(gate.gated);
  assert.is(gate.channelFailed(0), null, 'no fallback once a desired state arrived');
  assert.equal(gate.tick(10_000), []);
  assert.is(gate.state('a'), 'paused');
});

test('a channel failure while gated opens the gate resumeAfterMs after the first failure', () => {
  const gate = new NodeGate(['a', 'b'], 1000);
  assert.is(gate.releaseAt, null, 'no release time before a failure');
  assert.is(gate.channelFailed(5000), 6000);
  assert.is(gate.channelFailed(5500), 6000, 'later failures do not postpone it');
  assert.is(gate.releaseAt, 6000, 'reported in feedback for the console countdown');
  assert.equal(gate.tick(5999), []);
  assert.ok(gate.gated);
  assert.equal(gate.tick(6000), [
    { node: 'a', state: 'running' },
    { node: 'b', state: 'running' },
  ]);
  assert.not.ok(gate.gated);
  assert.equal(gate.tick(7000), [], 'opens once');
  assert.is(gate.channelFailed(8000), null);
});

test('resumeAfterMs 0 opens the gate at the first failure', () => {
  const gate = new NodeGate(['a'], 0);
  assert.is(gate.channelFailed(42), 42);
  assert.equal(gate.tick(42), [{ node: 'a', state: 'running' }]);
});

test('resumeAfterMs null keeps the engine gated whatever happens to the channel', () => {
  const gate = new NodeGate(['a'], null);
  assert.is(gate.channelFailed(0), null);
  assert.equal(gate.tick(Number.MAX_SAFE_INTEGER), []);
  assert.ok(gate.gated);
  assert.is(gate.state('a'), 'paused');
});

test('a desired state arriving before the release time cancels the release', () => {
  const gate = new NodeGate(['a', 'b'], 1000);
  gate.channelFailed(0);
  gate.applyDesired(desired({ a: 'running' }));
  assert.equal(gate.tick(2000), []);
  assert.is(gate.state('b'), 'paused');
});

test('without a failure the gate never opens by itself', () => {
  const gate = new NodeGate(['a'], 0);
  assert.equal(gate.tick(1e12), []);
  assert.ok(gate.gated);
});

test('after release, desired states apply as usual and failures change nothing', () => {
  const gate = new NodeGate(['a', 'b'], 10);
  gate.channelFailed(0);
  gate.tick(10);
  assert.equal(gate.applyDesired(desired({ b: 'paused' })), [{ node: 'b', state: 'paused' }]);
  gate.channelFailed(100);
  assert.equal(gate.tick(1e9), []);
  assert.equal(states(gate), { a: 'running', b: 'paused' });
});

test('an unknown node is a wiring error', () => {
  const gate = new NodeGate(['a'], null);
  assert.throws(() => gate.state('zz'), /unknown node "zz" \(known: a\)/);
});

test('an engine without consumer nodes is gated but has nothing to pause', () => {
  const gate = new NodeGate([], 0);
  gate.channelFailed(0);
  assert.equal(gate.tick(0), []);
  assert.not.ok(gate.gated);
});

test.run();
