/**
 * The behaviour every Store must have, as uvu tests; memory-store.test.ts and
 * mongo-store.test.ts run it against their store.
 */
import type { Test } from 'uvu';
import * as assert from 'uvu/assert';
import type { GenericFilter } from '../../../engine/filter/ast.ts';
import { buildStoreEdges } from '../../../engine/filter/index.ts';
import { canonicalJson } from '../../../engine/record/key.ts';
import type { StoreLayout } from '../../../engine/store/index.ts';
import type { RecordWrite, Store } from '../../../engine/store/types.ts';
import type { JsonObject } from '../../../operators/record/json.ts';

const byCustomer: GenericFilter = { $eq: [{ foreign: ['customerId'] }, { local: ['id'] }] };
const cheaperThan: GenericFilter = { $gt: [{ foreign: ['price'] }, { local: ['budget'] }] };

export const LAYOUT: Omit<StoreLayout, 'configId'> = {
  nodes: ['customers', 'orders'],
  heads: ['customers'],
  edges: buildStoreEdges([
    { id: 'customer-orders', parent: 'customers', child: 'orders', filter: byCustomer },
    { id: 'affordable-orders', parent: 'customers', child: 'orders', filter: cheaperThan },
  ]),
};
const [equalityEdge, rangeEdge] = LAYOUT.edges as [(typeof LAYOUT.edges)[0], (typeof LAYOUT.edges)[0]];

export const upsert = (key: JsonObject, value: JsonObject): RecordWrite => ({
  kind: 'upsert',
  ck: canonicalJson(key),
  key,
  value,
});
const remove = (key: JsonObject): RecordWrite => ({ kind: 'delete', ck: canonicalJson(key), key });
const ck = (key: JsonObject) => canonicalJson(key);
const keysOf = (lists: readonly (readonly { key: JsonObject }[])[]) =>
  lists.map((l) => l.map((r) => r.key.id));

/** Registers the behaviour tests on `suite`; `store()` returns the open store under test. */
export function storeBehaviour(suite: Test, store: () => Store): void {
  suite('write applies a batch in order; get returns present keys only', async () => {
    const s = store();
    await s.write('orders', [
      upsert({ id: 1 }, { customerId: 1, price: 10 }),
      upsert({ id: 2 }, { customerId: 1, price: 20 }),
      remove({ id: 2 }),
      upsert({ id: 3 }, { customerId: 2, price: 5 }),
      upsert({ id: 3 }, { customerId: 2, price: 7 }),
      remove({ id: 4 }),
      remove({ id: 5 }),
      upsert({ id: 5 }, { customerId: 3, price: 1 }),
    ]);
    const got = await s.get('orders', [
      ck({ id: 1 }),
      ck({ id: 2 }),
      ck({ id: 3 }),
      ck({ id: 5 }),
      ck({ id: 9 }),
    ]);
    assert.equal([...got.keys()].sort(), [ck({ id: 1 }), ck({ id: 3 }), ck({ id: 5 })]);
    assert.equal(got.get(ck({ id: 3 }))?.value, { customerId: 2, price: 7 });
    assert.equal(got.get(ck({ id: 3 }))?.key, { id: 3 });
    assert.equal(await s.count('orders'), 3);
    assert.equal((await s.get('orders', [])).size, 0);
  });

  suite('findChildren / findParents: aligned with the input, sorted by ck, exact, duplicates answered', async () => {
    const s = store();
    await s.write('customers', [
      upsert({ id: 1 }, { id: 1, budget: 15 }),
      upsert({ id: 2 }, { id: 2, budget: 100 }),
    ]);
    await s.write('orders', [upsert({ id: 10 }, { customerId: 1, price: 12 })]);
    const parents: JsonObject[] = [{ id: 1, budget: 15 }, { id: 7 }, { id: 1, budget: 15 }];
    // Lists follow ck order: '{"id":10}' sorts before '{"id":1}'.
    assert.equal(keysOf(await s.findChildren(equalityEdge, parents)), [[10, 1], [], [10, 1]]);
    const children: JsonObject[] = [
      { customerId: 1, price: 12 },
      { customerId: 2, price: 7 },
      { customerId: 9 },
    ];
    assert.equal(keysOf(await s.findParents(equalityEdge, children)), [[1], [2], []]);
    // r > price: customer 1 (budget 15) affords price 10 and 12, customer 2 everything.
    assert.equal(keysOf(await s.findChildren(rangeEdge, [{ budget: 15 }, { budget: 6 }])), [
      [10, 1, 3, 5],
      [5],
    ]);
    assert.equal(keysOf(await s.findParents(rangeEdge, [{ price: 50 }, { price: 1 }])), [[2], [1, 2]]);
    assert.equal(await s.findChildren(equalityEdge, []), []);
  });

  suite('an update moves a child between parents (indexes follow writes)', async () => {
    const s = store();
    await s.write('orders', [upsert({ id: 10 }, { customerId: 2, price: 12 })]);
    assert.equal(keysOf(await s.findChildren(equalityEdge, [{ id: 1 }, { id: 2 }])), [[1], [10, 3]]);
    await s.write('orders', [remove({ id: 10 })]);
    assert.equal(keysOf(await s.findChildren(equalityEdge, [{ id: 1 }, { id: 2 }])), [[1], [3]]);
    await s.write('customers', [upsert({ id: 1 }, { id: 3, budget: 15 })]);
    assert.equal(keysOf(await s.findParents(equalityEdge, [{ customerId: 1 }, { customerId: 3 }])), [
      [],
      [1],
    ]);
  });

  suite('scan yields every record in batches; count', async () => {
    const s = store();
    const writes = Array.from({ length: 25 }, (_, i) => upsert({ id: 100 + i }, { customerId: 0, price: i }));
    await s.write('orders', writes);
    const batches: number[] = [];
    const seen = new Set<string>();
    for await (const batch of s.scan('orders', 10)) {
      batches.push(batch.length);
      for (const r of batch) seen.add(r.ck);
    }
    const total = await s.count('orders');
    assert.equal(seen.size, total);
    assert.ok(batches.every((n) => n <= 10 && n > 0));
    assert.equal(
      batches.reduce((a, b) => a + b, 0),
      total,
    );
    assert.equal(total, 28);
  });

  suite('emitted aggregates: the exact text is kept; null removes', async () => {
    const s = store();
    const key = { id: 1 };
    // Key order and spacing as emitted: the store must not re-serialize it.
    const json = '{"value":{"z":1,"a":"\u00e9"},"dependencies":{"orders":[]}}';
    await s.writeEmitted('customers', [{ ck: ck(key), key, json }]);
    assert.is((await s.getEmitted('customers', [ck(key), ck({ id: 2 })])).get(ck(key)), json);
    assert.equal((await s.getEmitted('customers', [ck({ id: 2 })])).size, 0);
    await s.writeEmitted('customers', [{ ck: ck(key), key, json: null }]);
    assert.equal((await s.getEmitted('customers', [ck(key)])).size, 0);
  });

  suite('unknown node, head or edge is an error naming it', async () => {
    const s = store();
    const failure = (promise: Promise<unknown>) =>
      promise.then(
        () => 'resolved',
        (err: Error) => err.message,
      );
    assert.match(await failure(s.write('nope', [upsert({ id: 1 }, {})])), /unknown node "nope"/);
    assert.match(await failure(s.getEmitted('orders', ['x'])), /unknown head "orders"/);
    assert.match(
      await failure(s.findChildren({ ...equalityEdge, id: 'other' }, [{}])),
      /unknown edge "other"/,
    );
  });
}
