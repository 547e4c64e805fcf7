/**
 * Property: any bytes the control plane sends decode to a desired state that the engine accepts,
 * or are rejected with a reason; never an exception. The path is the engine's own: the `Connect`
 * stream's tolerant deserializer (wire check, then protobufjs), then `validateDesiredState`.
 * Inputs: random bytes, and valid encodings with bytes flipped, cut, or appended.
 */
import * as assert from 'node:assert/strict';
import type * as grpc from '@grpc/grpc-js';
import fc from 'fast-check';
import { validateDesiredState } from '../../engine/controlplane/desired-state.ts';
import { controlPlaneClient, controlPlaneService } from '../../engine/controlplane/proto.ts';
import { test } from '../support/suite.ts';
import { checkProperty } from './property.ts';

const connect = (controlPlaneClient() as unknown as { service: grpc.ServiceDefinition }).service
  .Connect as grpc.MethodDefinition<object, unknown>;
const encode = (message: object) =>
  (controlPlaneService().Connect as grpc.MethodDefinition<object, object>).responseSerialize(message);
const NODES = new Set(['orders', 'customers']);

function acceptedOrReason(bytes: Uint8Array): void {
  const result = validateDesiredState(connect.responseDeserialize(Buffer.from(bytes)), NODES);
  if (!result.accepted) assert.ok(result.reason.length > 0, 'rejected without a reason');
  else for (const node of result.changes.keys()) assert.ok(NODES.has(node));
}

const desiredState = fc.record({
  requestId: fc.string({ maxLength: 20 }),
  nodes: fc.array(
    fc.record({
      node: fc.constantFrom('orders', 'customers', 'other', ''),
      state: fc.constantFrom('NODE_STATE_RUNNING', 'NODE_STATE_PAUSED', 'NODE_STATE_UNSPECIFIED'),
    }),
    { maxLength: 4 },
  ),
});

/** A valid encoding with a few bytes changed, then cut short or extended. */
const damaged = fc
  .tuple(
    desiredState,
    fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 4 }),
    fc.option(fc.nat()),
    fc.uint8Array({ maxLength: 8 }),
  )
  .map(([message, flips, cut, tail]) => {
    const bytes = Uint8Array.from(encode(message));
    for (const [at, value] of flips) if (bytes.length > 0) bytes[at % bytes.length] = value;
    const kept = cut === null ? bytes : bytes.subarray(0, cut % (bytes.length + 1));
    return Uint8Array.from([...kept, ...tail]);
  });

test('random bytes: accepted, or rejected with a reason', () => {
  checkProperty('wire: random bytes', 5000, fc.uint8Array({ maxLength: 64 }), acceptedOrReason);
});

test('damaged encodings: accepted, or rejected with a reason', () => {
  checkProperty('wire: damaged encodings', 5000, damaged, acceptedOrReason);
});

test('valid encodings of known nodes and states are accepted', () => {
  checkProperty('wire: valid encodings', 500, desiredState, (message) => {
    const result = validateDesiredState(connect.responseDeserialize(encode(message)), NODES);
    const names = message.nodes.map((n) => n.node);
    const valid =
      message.nodes.every((n) => NODES.has(n.node) && n.state !== 'NODE_STATE_UNSPECIFIED') &&
      new Set(names).size === names.length;
    assert.equal(result.accepted, valid, JSON.stringify(result));
  });
});

test.run();
