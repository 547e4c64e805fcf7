import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { buildStoreEdges } from '../../../engine/filter/index.ts';
import { MemoryStore } from '../../../engine/store/index.ts';
import { LAYOUT, storeBehaviour, upsert } from './store-behaviour.ts';

const behaviour = suite('MemoryStore behaviour');
const store = new MemoryStore({ ...LAYOUT, configId: 'test' });
storeBehaviour(behaviour, () => store);
behaviour.run();

const lookups = suite('MemoryStore lookups');

lookups('an equality edge is answered from the hash index: links() runs only for matches', async () => {
  const [edge] = buildStoreEdges([
    { id: 'e', parent: 'p', child: 'c', filter: { $eq: [{ foreign: ['pid'] }, { local: ['id'] }] } },
  ]);
  let calls = 0;
  const links = edge!.filter.links;
  const counted = {
    ...edge!,
    filter: {
      ...edge!.filter,
      links: (p: never, c: never) => {
        calls++;
        return links(p, c);
      },
    },
  };
  const s = new MemoryStore({ configId: 't', nodes: ['p', 'c'], heads: ['p'], edges: [counted] });
  await s.write(
    'c',
    Array.from({ length: 5000 }, (_, i) => upsert({ id: i }, { pid: i % 1000 })),
  );
  await s.write('p', [upsert({ id: 7 }, { id: 7 })]);
  const [children] = await s.findChildren(counted, [{ id: 7 }]);
  assert.equal(children!.length, 5);
  assert.equal(calls, 5, 'no scan of the 5000 children');
  calls = 0;
  assert.equal(
    (await s.findParents(counted, [{ pid: 7 }, { pid: 8 }])).map((l) => l.length),
    [1, 0],
  );
  assert.equal(calls, 1);
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
