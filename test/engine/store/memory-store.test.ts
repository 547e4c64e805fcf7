import * as assert from 'uvu/assert';
import type { GenericFilter } from '../../../engine/filter/ast.ts';
import { buildStoreEdges } from '../../../engine/filter/index.ts';
import { MemoryStore } from '../../../engine/store/index.ts';
import { suite } from '../../support/suite.ts';
import { LAYOUT, storeBehaviour, upsert } from './store-behaviour.ts';

const behaviour = suite('MemoryStore behaviour');
const store = new MemoryStore({ ...LAYOUT, configId: 'test' });
storeBehaviour(behaviour, () => store);
behaviour.run();

const lookups = suite('MemoryStore lookups');

/** An edge whose `links` calls are counted. */
function countedEdge(filter: GenericFilter) {
  const [edge] = buildStoreEdges([{ id: 'e', parent: 'p', child: 'c', filter }]);
  const counter = { calls: 0 };
  const links = edge!.filter.links;
  const counted = {
    ...edge!,
    filter: {
      ...edge!.filter,
      links: (p: never, c: never) => {
        counter.calls++;
        return links(p, c);
      },
    },
  };
  return { edge: counted, counter };
}

lookups('an equality edge is answered from the hash index: links() runs only for matches', async () => {
  // $eq plus another condition: a hash match must still be confirmed.
  const { edge, counter } = countedEdge({
    $and: [{ $eq: [{ foreign: ['pid'] }, { local: ['id'] }] }, { $ne: [{ foreign: ['gone'] }, true] }],
  });
  const s = new MemoryStore({ configId: 't', nodes: ['p', 'c'], heads: ['p'], edges: [edge] });
  await s.write(
    'c',
    Array.from({ length: 5000 }, (_, i) => upsert({ id: i }, { pid: i % 1000, gone: i === 7 })),
  );
  await s.write('p', [upsert({ id: 7 }, { id: 7 })]);
  const [children] = await s.findChildren(edge, [{ id: 7 }]);
  assert.equal(
    children!.map((c) => c.key.id),
    [1007, 2007, 3007, 4007],
    'the hash match of id 7 fails the other condition',
  );
  assert.equal(counter.calls, 5, 'no scan of the 5000 children');
  counter.calls = 0;
  assert.equal(
    (await s.findParents(edge, [{ pid: 7 }, { pid: 8 }])).map((l) => l.length),
    [1, 0],
  );
  assert.equal(counter.calls, 1);
});

lookups('a plain foreign-key $eq is decided by the hash match alone: links() never runs', async () => {
  const { edge, counter } = countedEdge({ $eq: [{ foreign: ['pid'] }, { local: ['id'] }] });
  assert.ok(edge.filter.exact);
  const s = new MemoryStore({ configId: 't', nodes: ['p', 'c'], heads: ['p'], edges: [edge] });
  await s.write('c', [
    upsert({ id: 1 }, { pid: 7 }),
    upsert({ id: 2 }, { pid: [7, 8] }),
    upsert({ id: 3 }, { pid: '7' }),
    upsert({ id: 4 }, {}),
    upsert({ id: 5 }, { pid: null }),
  ]);
  const ids = async (parents: object[]) =>
    (await s.findChildren(edge, parents as never)).map((l) => l.map((r) => r.key.id));
  // Number vs string, array elements, and a missing local value (null) matching null and missing.
  assert.equal(await ids([{ id: 7 }, { id: '7' }, { id: 8 }, {}]), [[1, 2], [3], [2], [4, 5]]);
  assert.equal(counter.calls, 0);
});

lookups('multikey: an array value is found under each element; null under missing', async () => {
  const [edge] = buildStoreEdges([
    { id: 'e', parent: 'p', child: 'c', filter: { $eq: [{ foreign: ['tags'] }, { local: ['tag'] }] } },
  ]);
  const s = new MemoryStore({ configId: 't', nodes: ['p', 'c'], heads: ['p'], edges: [edge!] });
  await s.write('c', [
    upsert({ id: 1 }, { tags: ['a', 'b'] }),
    upsert({ id: 2 }, {}),
    upsert({ id: 3 }, { tags: null }),
  ]);
  const ids = async (parents: object[]) =>
    (await s.findChildren(edge!, parents as never)).map((l) => l.map((r) => r.key.id));
  assert.equal(await ids([{ tag: 'a' }, { tag: 'b' }, { tag: ['a', 'b'] }, {}]), [[1], [1], [1], [2, 3]]);
});

lookups('every call counts as one round trip', async () => {
  const s = new MemoryStore({ ...LAYOUT, configId: 'rt' });
  await s.write('orders', [upsert({ id: 1 }, {})]);
  await s.findChildren(LAYOUT.edges[0]!, [{ id: 1 }, { id: 2 }]);
  await s.get('orders', ['x']);
  assert.equal(s.counters.roundTrips, 3);
});

lookups.run();
