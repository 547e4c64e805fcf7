import * as assert from 'uvu/assert';
import { validateDesiredState } from '../../../engine/controlplane/desired-state.ts';
import { UndecodableMessage } from '../../../engine/controlplane/proto.ts';
import { test } from '../../support/suite.ts';

const NODES = new Set(['orders', 'customers']);

test('accepts running and paused states for known nodes', () => {
  const result = validateDesiredState(
    {
      requestId: 'r1',
      nodes: [
        { node: 'orders', state: 'NODE_STATE_PAUSED' },
        { node: 'customers', state: 'NODE_STATE_RUNNING' },
      ],
    },
    NODES,
  );
  assert.equal(result, {
    accepted: true,
    requestId: 'r1',
    changes: new Map([
      ['orders', 'paused'],
      ['customers', 'running'],
    ]),
  });
});

test('accepts an empty list of nodes', () => {
  assert.equal(validateDesiredState({ requestId: '', nodes: [] }, NODES), {
    accepted: true,
    requestId: '',
    changes: new Map(),
  });
});

const REJECTED: Array<[string, unknown, RegExp]> = [
  [
    'an unknown node',
    { requestId: 'x', nodes: [{ node: 'nope', state: 'NODE_STATE_PAUSED' }] },
    /nodes\[0\]: unknown node "nope" \(known: orders, customers\)/,
  ],
  [
    'an empty node id',
    { requestId: 'x', nodes: [{ node: '', state: 'NODE_STATE_PAUSED' }] },
    /nodes\[0\]: the node id is empty/,
  ],
  [
    'a missing node id',
    { requestId: 'x', nodes: [{ state: 'NODE_STATE_PAUSED' }] },
    /nodes\[0\]: the node id is empty/,
  ],
  [
    'a state named like an Object.prototype member',
    { requestId: 'x', nodes: [{ node: 'orders', state: 'toString' }] },
    /"toString", expected NODE_STATE_RUNNING or NODE_STATE_PAUSED/,
  ],
  [
    'an unspecified state',
    { requestId: 'x', nodes: [{ node: 'orders', state: 'NODE_STATE_UNSPECIFIED' }] },
    /"NODE_STATE_UNSPECIFIED", expected NODE_STATE_RUNNING or NODE_STATE_PAUSED/,
  ],
  [
    'a state number the proto does not know',
    { requestId: 'x', nodes: [{ node: 'orders', state: 99 }] },
    /state 99, expected/,
  ],
  ['a missing state', { requestId: 'x', nodes: [{ node: 'orders' }] }, /state undefined, expected/],
  [
    'a node listed twice',
    {
      requestId: 'x',
      nodes: [
        { node: 'orders', state: 'NODE_STATE_PAUSED' },
        { node: 'orders', state: 'NODE_STATE_PAUSED' },
      ],
    },
    /nodes\[1\]: node "orders" is listed twice/,
  ],
  ['a null entry', { requestId: 'x', nodes: [null] }, /nodes\[0\]: the node id is empty/],
  ['nodes that are not a list', { requestId: 'x', nodes: 'orders' }, /`nodes` is not a list/],
  ['null', null, /not a DesiredState message/],
  [
    'an undecodable message',
    new UndecodableMessage('invalid wire type 7'),
    /not a valid DesiredState message \(invalid wire type 7\)/,
  ],
];

for (const [what, message, reason] of REJECTED) {
  test(`rejects ${what}`, () => {
    const result = validateDesiredState(message, NODES);
    assert.is(result.accepted, false);
    if (!result.accepted) assert.match(result.reason, reason);
  });
}

test('one bad entry rejects the whole message (nothing applied)', () => {
  const result = validateDesiredState(
    {
      requestId: 'r2',
      nodes: [
        { node: 'orders', state: 'NODE_STATE_PAUSED' },
        { node: 'ghost', state: 'NODE_STATE_PAUSED' },
      ],
    },
    NODES,
  );
  assert.equal(result, {
    accepted: false,
    requestId: 'r2',
    reason: 'nodes[1]: unknown node "ghost" (known: orders, customers)',
  });
});

test('a huge desired state is validated without trouble', () => {
  const many = new Set(Array.from({ length: 10_000 }, (_, i) => `n${i}`));
  const nodes = [...many].map((node) => ({ node, state: 'NODE_STATE_RUNNING' }));
  const result = validateDesiredState({ requestId: 'big', nodes }, many);
  assert.ok(result.accepted && result.changes.size === 10_000);
});

test.run();
