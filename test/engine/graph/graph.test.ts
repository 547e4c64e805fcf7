import * as assert from 'uvu/assert';
import {
  buildGraph,
  findCycle,
  type GraphConfig,
  GraphError,
  topologicalSort,
} from '../../../engine/graph/index.ts';
import { test } from '../../support/suite.ts';

function graphOf(links: Array<[string, string]>, nodeIds: string[]): GraphConfig {
  const edges = links.map(([parent, child]) => ({ id: `${parent}_${child}`, filter: true as const }));
  const nodes = nodeIds.map((id) => ({
    id,
    edges: {
      in: links.filter(([, child]) => child === id).map(([p, c]) => `${p}_${c}`),
      out: links.filter(([parent]) => parent === id).map(([p, c]) => `${p}_${c}`),
    },
  }));
  return { edges, nodes };
}

test('a chain: heads, order, edges, subgraph', () => {
  const graph = buildGraph(
    graphOf(
      [
        ['customers', 'orders'],
        ['orders', 'items'],
      ],
      ['items', 'orders', 'customers'],
    ),
  );
  assert.equal(graph.heads, ['customers']);
  assert.equal(graph.topologicalOrder, ['customers', 'orders', 'items']);
  assert.equal(graph.edges.get('orders_items'), {
    id: 'orders_items',
    parent: 'orders',
    child: 'items',
    filter: true,
  });
  assert.equal(
    graph.nodes.get('orders')!.in.map((edge) => edge.parent),
    ['customers'],
  );
  assert.equal(
    graph.nodes.get('orders')!.out.map((edge) => edge.child),
    ['items'],
  );
  assert.equal(graph.subgraph('orders'), ['orders', 'items']);
});

test('a node of two parents belongs to both heads', () => {
  const graph = buildGraph(
    graphOf(
      [
        ['a', 'c'],
        ['b', 'c'],
        ['c', 'd'],
      ],
      ['a', 'b', 'c', 'd', 'lonely'],
    ),
  );
  assert.equal(graph.heads, ['a', 'b', 'lonely']);
  assert.equal(graph.subgraph('a'), ['a', 'c', 'd']);
  assert.equal(graph.subgraph('b'), ['b', 'c', 'd']);
  assert.equal(graph.subgraph('lonely'), ['lonely']);
  assert.equal(
    graph.nodes.get('c')!.in.map((edge) => edge.parent),
    ['a', 'b'],
  );
  assert.throws(() => graph.subgraph('nope'), /unknown node nope/);
});

test('a diamond is ordered so every node follows all its parents', () => {
  const graph = buildGraph(
    graphOf(
      [
        ['d', 'b'],
        ['d', 'c'],
        ['b', 'a'],
        ['c', 'a'],
      ],
      ['a', 'b', 'c', 'd'],
    ),
  );
  const order = graph.topologicalOrder;
  for (const edge of graph.edges.values()) assert.ok(order.indexOf(edge.parent) < order.indexOf(edge.child));
  assert.equal(graph.subgraph('d'), order);
});

test('findCycle names the cycle, or returns null', () => {
  const cyclic = new Map([
    ['a', ['b']],
    ['b', ['c']],
    ['c', ['a']],
    ['d', []],
  ]);
  assert.equal(findCycle(cyclic), ['a', 'b', 'c', 'a']);
  assert.equal(findCycle(new Map([['x', ['x']]])), ['x', 'x']);
  assert.is(
    findCycle(
      new Map([
        ['a', ['b']],
        ['b', []],
      ]),
    ),
    null,
  );
  assert.is(findCycle(new Map()), null);
  assert.is(topologicalSort(cyclic), null);
});

test('a long chain is handled', () => {
  const ids = Array.from({ length: 2000 }, (_, index) => `n${index}`);
  const links = ids.slice(1).map((id, index): [string, string] => [ids[index]!, id]);
  const graph = buildGraph(graphOf(links, ids));
  assert.equal(graph.topologicalOrder, ids);
  assert.is(graph.subgraph('n1990').length, 10);
});

test('buildGraph rejects what references.ts rejects', () => {
  assert.throws(
    () =>
      buildGraph(
        graphOf(
          [
            ['a', 'b'],
            ['b', 'a'],
          ],
          ['a', 'b'],
        ),
      ),
    (e: unknown) => e instanceof GraphError,
  );
  const dangling: GraphConfig = { edges: [], nodes: [{ id: 'a', edges: { in: [], out: ['ghost'] } }] };
  assert.throws(() => buildGraph(dangling), /ghost is referenced but not declared/);
  const orphan: GraphConfig = {
    edges: [{ id: 'e', filter: true }],
    nodes: [{ id: 'a', edges: { in: [], out: ['e'] } }],
  };
  assert.throws(() => buildGraph(orphan), /edge e must be declared once/);
});

test.run();
