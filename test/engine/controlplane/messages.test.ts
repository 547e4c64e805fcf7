/**
 * `engine/controlplane/messages.ts` is written by hand: these tests keep it in sync with
 * `controlplane.proto`. The field lists are typed against the message types, so `tsc` fails when
 * a type gains or loses a field, and the tests fail when the proto does.
 */
import type * as grpc from '@grpc/grpc-js';
import * as assert from 'uvu/assert';
import type {
  DesiredState,
  DesiredStateAck,
  EngineGraph,
  FeedbackEvent,
  GraphEdge,
  GraphNode,
  NodeDesiredState,
  NodeFeedback,
  NodeState,
  PartitionFeedback,
} from '../../../engine/controlplane/index.ts';
import { controlPlaneService, packageDefinition } from '../../../engine/controlplane/proto.ts';
import { test } from '../../support/suite.ts';

type Fields<T> = { readonly [K in keyof T]-?: true };

const MESSAGES: Record<string, object> = {
  FeedbackEvent: {
    engineId: true,
    instanceId: true,
    sequence: true,
    sentAtMs: true,
    windowMs: true,
    gated: true,
    nodes: true,
    releaseAtMs: true,
  } satisfies Fields<FeedbackEvent>,
  NodeFeedback: {
    node: true,
    state: true,
    messagesPerSecond: true,
    partitions: true,
  } satisfies Fields<NodeFeedback>,
  PartitionFeedback: {
    topic: true,
    partition: true,
    committedOffset: true,
    highWatermark: true,
    lag: true,
  } satisfies Fields<PartitionFeedback>,
  DesiredState: { requestId: true, nodes: true } satisfies Fields<DesiredState>,
  NodeDesiredState: { node: true, state: true } satisfies Fields<NodeDesiredState>,
  DesiredStateAck: { requestId: true, accepted: true, reason: true } satisfies Fields<DesiredStateAck>,
  EngineGraph: {
    engineId: true,
    instanceId: true,
    nodes: true,
    edges: true,
    heads: true,
  } satisfies Fields<EngineGraph>,
  GraphNode: { id: true, topic: true } satisfies Fields<GraphNode>,
  GraphEdge: { id: true, parent: true, child: true, sentence: true } satisfies Fields<GraphEdge>,
  EngineMessage: { feedback: true, ack: true, graph: true },
};
const NODE_STATES: Record<NodeState, true> = {
  NODE_STATE_UNSPECIFIED: true,
  NODE_STATE_RUNNING: true,
  NODE_STATE_PAUSED: true,
};

const camel = (name: string) => name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
const PACKAGE = 'streamfold.controlplane.v1';

function protoFields(message: string): string[] {
  const definition = packageDefinition()[`${PACKAGE}.${message}`] as
    | { type: { field: Array<{ name: string }> } }
    | undefined;
  assert.ok(definition, `${message} is in the proto`);
  return definition.type.field.map((f) => camel(f.name));
}

test('every message of the proto has a hand-written type with the same fields', () => {
  const protoMessages = Object.entries(packageDefinition())
    .filter(([, d]) => (d as { format?: string }).format === 'Protocol Buffer 3 DescriptorProto')
    .map(([name]) => name.slice(PACKAGE.length + 1))
    .sort();
  assert.equal(protoMessages, Object.keys(MESSAGES).sort());
  for (const [message, fields] of Object.entries(MESSAGES)) {
    assert.equal(protoFields(message).sort(), Object.keys(fields).sort(), message);
  }
});

test('the NodeState names match the proto enum', () => {
  const definition = packageDefinition()[`${PACKAGE}.NodeState`] as {
    type: { value: Array<{ name: string }> };
  };
  assert.equal(definition.type.value.map((v) => v.name).sort(), Object.keys(NODE_STATES).sort());
});

test('a fully populated feedback event survives encoding and decoding unchanged', () => {
  const connect = controlPlaneService().Connect as grpc.MethodDefinition<object, object>;
  const feedback: FeedbackEvent = {
    engineId: 'engine-01',
    instanceId: 'i-1',
    sequence: 7,
    sentAtMs: 1_790_000_000_123,
    windowMs: 3001,
    gated: true,
    releaseAtMs: 1_790_000_030_000,
    nodes: [
      {
        node: 'orders',
        state: 'NODE_STATE_PAUSED',
        messagesPerSecond: 12.5,
        partitions: [{ topic: 't', partition: 3, committedOffset: -1, highWatermark: 2 ** 40, lag: 2 ** 40 }],
      },
    ],
  };
  const decoded = connect.requestDeserialize(connect.requestSerialize({ feedback }));
  assert.equal(decoded, { feedback, kind: 'feedback' });
});

test('a desired state and an ack survive encoding and decoding unchanged', () => {
  const connect = controlPlaneService().Connect as grpc.MethodDefinition<object, object>;
  const desired: DesiredState = { requestId: 'r1', nodes: [{ node: 'a', state: 'NODE_STATE_RUNNING' }] };
  assert.equal(connect.responseDeserialize(connect.responseSerialize(desired)), desired);
  const ack: DesiredStateAck = { requestId: 'r1', accepted: false, reason: 'why' };
  assert.equal(connect.requestDeserialize(connect.requestSerialize({ ack })), { ack, kind: 'ack' });
});

test('a graph survives encoding and decoding unchanged', () => {
  const connect = controlPlaneService().Connect as grpc.MethodDefinition<object, object>;
  const graph: EngineGraph = {
    engineId: 'engine-01',
    instanceId: 'i-1',
    nodes: [
      { id: 'customers', topic: 'customers-topic' },
      { id: 'orders', topic: 'orders-topic' },
    ],
    edges: [{ id: 'e1', parent: 'customers', child: 'orders', sentence: 'customers.id = orders.customerId' }],
    heads: ['customers'],
  };
  assert.equal(connect.requestDeserialize(connect.requestSerialize({ graph })), { graph, kind: 'graph' });
});

test.run();
