import * as assert from 'uvu/assert';
import { parseConfig } from '../../../engine/config/index.ts';
import { test } from '../../support/suite.ts';
import { edited, issuesOf, type Sample } from './fixtures.ts';

type Edit = (c: Sample) => void;

const nodes = (c: Sample) => c.processor.graph.nodes as Array<Sample>;
const edges = (c: Sample) => c.processor.graph.edges as Array<Sample>;

/** Adds an edge `id` out of `nodes[from]` and into `nodes[to]`. */
function addEdge(c: Sample, id: string, from: number, to: number): void {
  edges(c).push({ id, filter: true });
  nodes(c)[from]!.edges.out.push(id);
  nodes(c)[to]!.edges.in.push(id);
}

/** A row for a `connectionName` at `path` that names no entry of connections. */
function unknownConnection(name: string, edit: Edit, path: string): [string, Edit, string, RegExp] {
  return [name, edit, path, /must name an entry of connections/];
}

const FAILING: Array<[string, Edit, string, RegExp]> = [
  unknownConnection(
    'a consumer naming an unknown connection',
    (c) => (c.consumers.config.orders.connectionName = 'missing'),
    'consumers.config.orders.connectionName',
  ),
  unknownConnection(
    'the producer naming an unknown connection',
    (c) => (c.producer.config.connectionName = 'missing'),
    'producer.config.connectionName',
  ),
  unknownConnection(
    'internal updates naming an unknown connection',
    (c) => (c.processor.internalUpdates.config.connectionName = 'missing'),
    'processor.internalUpdates.config.connectionName',
  ),
  unknownConnection(
    'an inherited property name as connection',
    (c) => (c.producer.config.connectionName = 'toString'),
    'producer.config.connectionName',
  ),
  [
    'a node without consumer',
    (c) => {
      nodes(c).push({ id: 'payments', edges: { in: [], out: [] } });
    },
    'processor.graph.nodes[3].id',
    /must name a consumer/,
  ],
  [
    'a consumer without node',
    (c) => (c.consumers.config.payments = { topic: 'payments', connectionName: 'kafka' }),
    'consumers.config.payments',
    /must be the id of a node/,
  ],
  [
    'a duplicate edge id',
    (c) => edges(c).push({ id: 'orderItems', filter: true }),
    'processor.graph.edges[2].id',
    /duplicate id, already used by edges\[1\]/,
  ],
  [
    'a duplicate node id',
    (c) => nodes(c).push({ id: 'items', edges: { in: [], out: [] } }),
    'processor.graph.nodes[3].id',
    /duplicate id, already used by nodes\[2\]/,
  ],
  [
    'an edge in no out list',
    (c) => (nodes(c)[0]!.edges.out = []),
    'processor.graph.edges[0].id',
    /exactly one node's edges.out \(found: none\)/,
  ],
  [
    'an edge in no in list',
    (c) => (nodes(c)[2]!.edges.in = []),
    'processor.graph.edges[1].id',
    /exactly one node's edges.in \(found: none\)/,
  ],
  [
    'an edge in two out lists',
    (c) => nodes(c)[2]!.edges.out.push('customerOrders'),
    'processor.graph.edges[0].id',
    /edges.out \(found: customers, items\)/,
  ],
  [
    'an edge in two in lists',
    (c) => nodes(c)[2]!.edges.in.push('customerOrders'),
    'processor.graph.edges[0].id',
    /edges.in \(found: orders, items\)/,
  ],
  [
    'a reference to an undeclared edge',
    (c) => nodes(c)[2]!.edges.out.push('ghost'),
    'processor.graph.nodes[2].edges.out[0]',
    /must name an edge/,
  ],
  ['a cycle', (c) => addEdge(c, 'back', 2, 1), 'processor.graph', /cycle orders -> items -> orders/],
  ['a self loop', (c) => addEdge(c, 'self', 1, 1), 'processor.graph', /cycle orders -> orders/],
  ['no head', (c) => addEdge(c, 'back', 2, 0), 'processor.graph.nodes', /at least one head/],
  [
    'an empty graph',
    (c) => {
      c.processor.graph = { nodes: [], edges: [] };
      c.consumers.config = {};
    },
    'processor.graph.nodes',
    /at least one head/,
  ],
];

for (const [name, edit, path, rule] of FAILING) {
  test(`rejects ${name}`, () => {
    const issues = issuesOf(edited(edit));
    const issue = issues.find((candidate) => candidate.path === path && rule.test(candidate.rule));
    assert.ok(issue, `no issue at ${path} matching ${rule}: ${JSON.stringify(issues)}`);
  });
}

test('all reference problems are collected together', () => {
  const issues = issuesOf(
    edited((c) => {
      c.consumers.config.orders.connectionName = 'missing';
      nodes(c)[2]!.edges.out.push('ghost');
      edges(c).push({ id: 'orderItems', filter: true });
    }),
  );
  assert.ok(issues.length >= 3, JSON.stringify(issues));
});

test('a cartesian edge is a warning, not an error', () => {
  const config = edited((c) => delete edges(c)[1]!.filter);
  const { warnings } = parseConfig(JSON.stringify(config));
  assert.equal(
    warnings.map((warning) => warning.path),
    ['processor.graph.edges[1].filter'],
  );
  assert.match(warnings[0]!.rule, /cartesian product/);
});

test('a valid config has no warnings', () => {
  assert.equal(parseConfig(JSON.stringify(edited(() => {}))).warnings, []);
});

test.run();
