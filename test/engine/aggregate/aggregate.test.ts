import * as assert from 'uvu/assert';
import { findAffectedHeads } from '../../../engine/aggregate/affected-heads.ts';
import { aggregateObject, computeAggregates, linkAggregates } from '../../../engine/aggregate/compute.ts';
import { aggregateJson } from '../../../engine/aggregate/serialize.ts';
import type { GenericFilter } from '../../../engine/filter/ast.ts';
import { canonicalJson } from '../../../engine/record/key.ts';
import { compileConfig } from '../../../engine/runtime/compile.ts';
import { MemoryStore } from '../../../engine/store/index.ts';
import type { StoredRecord } from '../../../engine/store/types.ts';
import type { JsonObject } from '../../../operators/record/json.ts';
import { configFor, DIAMOND, type GraphSpec, SINGLE_VIEW } from '../../support/configs.ts';
import { test } from '../../support/suite.ts';

async function setup(spec: GraphSpec, data: Record<string, JsonObject[]>) {
  const compiled = compileConfig(configFor(spec));
  const store = new MemoryStore(compiled.layout);
  await store.open();
  for (const [node, values] of Object.entries(data)) {
    await store.write(
      node,
      values.map((value) => ({
        kind: 'upsert' as const,
        ck: canonicalJson({ id: value.id ?? null }),
        key: { id: value.id ?? null },
        value,
      })),
    );
  }
  return { store, topology: compiled.topology };
}

const rec = (value: JsonObject): StoredRecord => ({
  ck: canonicalJson({ id: value.id ?? null }),
  key: { id: value.id ?? null },
  value,
});

test('single view: nested dependencies ordered by child key, empty lists kept', async () => {
  const { store, topology } = await setup(SINGLE_VIEW, {
    customers: [{ id: 1 }, { id: 2 }],
    orders: [
      { id: 11, customerId: 1 },
      { id: 10, customerId: 1 },
      { id: 20, customerId: 9 },
    ],
    items: [
      { id: 101, orderId: 10 },
      { id: 100, orderId: 10 },
    ],
  });
  const heads = [rec({ id: 1 }), rec({ id: 2 })];
  const aggregates = await computeAggregates(store, topology, 'customers', heads);
  assert.equal(aggregates.get('{"id":1}'), {
    value: { id: 1 },
    dependencies: {
      orders: [
        {
          value: { id: 10, customerId: 1 },
          dependencies: {
            items: [
              { value: { id: 100, orderId: 10 }, dependencies: {} },
              { value: { id: 101, orderId: 10 }, dependencies: {} },
            ],
          },
        },
        { value: { id: 11, customerId: 1 }, dependencies: { items: [] } },
      ],
    },
  });
  assert.equal(aggregates.get('{"id":2}'), { value: { id: 2 }, dependencies: { orders: [] } });
});

test('a batch of heads costs one store call per edge', async () => {
  const { store, topology } = await setup(SINGLE_VIEW, {
    customers: Array.from({ length: 500 }, (_, i) => ({ id: i })),
    orders: Array.from({ length: 1500 }, (_, i) => ({ id: 10_000 + i, customerId: i % 500 })),
    items: Array.from({ length: 3000 }, (_, i) => ({ id: 100_000 + i, orderId: 10_000 + (i % 1500) })),
  });
  const before = store.counters.roundTrips;
  const aggregates = await computeAggregates(
    store,
    topology,
    'customers',
    Array.from({ length: 500 }, (_, i) => rec({ id: i })),
  );
  assert.is(store.counters.roundTrips - before, 2);
  assert.is(aggregates.size, 500);
  assert.is((aggregates.get('{"id":7}')?.dependencies.orders ?? []).length, 3);
});

test('diamond: a refund appears only when linked to an included order and an included payment', async () => {
  const { store, topology } = await setup(DIAMOND, {
    customers: [{ id: 1 }, { id: 2 }],
    orders: [
      { id: 10, customerId: 1 },
      { id: 20, customerId: 2 },
    ],
    payments: [
      { id: 50, customerId: 1 },
      { id: 60, customerId: 2 },
    ],
    refunds: [
      { id: 500, orderId: 10, paymentId: 50 }, // both parents under customer 1
      { id: 501, orderId: 10, paymentId: 60 }, // payment belongs to customer 2
      { id: 502, orderId: 10 }, // no payment at all
    ],
  });
  const aggregates = await computeAggregates(store, topology, 'customers', [rec({ id: 1 }), rec({ id: 2 })]);
  const one = aggregates.get('{"id":1}');
  const refundIds = (list: { value: JsonObject }[] | undefined) => (list ?? []).map((r) => r.value.id);
  assert.equal(refundIds(one?.dependencies.orders?.[0]?.dependencies.refunds), [500]);
  assert.equal(refundIds(one?.dependencies.payments?.[0]?.dependencies.refunds), [500]);
  const two = aggregates.get('{"id":2}');
  // Refund 501 links to payment 60 (customer 2) but its order 10 is customer 1's: excluded from both.
  assert.equal(refundIds(two?.dependencies.payments?.[0]?.dependencies.refunds), []);
  assert.equal(refundIds(two?.dependencies.orders?.[0]?.dependencies.refunds), []);
});

test('two edges to one child: a child is a member only when both link; JSON and object forms agree', async () => {
  const byField = (foreign: string, local: string): GenericFilter => ({
    $eq: [{ foreign: [foreign] }, { local: [local] }],
  });
  const twoEdges: GraphSpec = {
    nodes: ['customers', 'orders'],
    edges: [
      { id: 'byCustomer', parent: 'customers', child: 'orders', filter: byField('customerId', 'id') },
      { id: 'byRegion', parent: 'customers', child: 'orders', filter: byField('region', 'region') },
    ],
  };
  const { store, topology } = await setup(twoEdges, {
    customers: [{ id: 1, region: 'eu' }],
    orders: [
      { id: 10, customerId: 1, region: 'eu' }, // both edges link
      { id: 11, customerId: 1, region: 'us' }, // only byCustomer
      { id: 12, customerId: 2, region: 'eu' }, // only byRegion
    ],
  });
  const head = rec({ id: 1, region: 'eu' });
  const linked = await linkAggregates(store, topology, 'customers', [head]);
  const object = aggregateObject(linked.tree(head));
  assert.equal(
    (object.dependencies.orders ?? []).map((o) => o.value.id),
    [10],
  );
  assert.is(aggregateJson(linked.tree(head)), JSON.stringify(object));
});

test('the JSON form of real linked aggregates is JSON.stringify of their object form (tree and diamond)', async () => {
  const graphs: Array<[GraphSpec, Record<string, JsonObject[]>]> = [
    [
      SINGLE_VIEW,
      {
        customers: [{ id: 1, name: 'é "q"' }, { id: 2 }],
        orders: [
          { id: 11, customerId: 1 },
          { id: 10, customerId: 1 },
        ],
        items: [{ id: 100, orderId: 10, tags: ['a', null] }],
      },
    ],
    [
      DIAMOND,
      {
        customers: [{ id: 1 }],
        orders: [{ id: 10, customerId: 1 }],
        payments: [{ id: 50, customerId: 1 }],
        refunds: [
          { id: 500, orderId: 10, paymentId: 50 },
          { id: 501, orderId: 10, paymentId: 60 },
        ],
      },
    ],
  ];
  for (const [graph, data] of graphs) {
    const { store, topology } = await setup(graph, data);
    const heads = [...(await store.get('customers', ['{"id":1}', '{"id":2}'])).values()];
    const linked = await linkAggregates(store, topology, 'customers', heads);
    for (const head of heads) {
      assert.is(aggregateJson(linked.tree(head)), JSON.stringify(aggregateObject(linked.tree(head))));
    }
  }
});

test('upward walk: an item finds its customer; old and new versions of a moved order find both', async () => {
  const { store, topology } = await setup(SINGLE_VIEW, {
    customers: [{ id: 1 }, { id: 2 }, { id: 3 }],
    orders: [{ id: 10, customerId: 1 }],
    items: [{ id: 100, orderId: 10 }],
  });
  const fromItem = await findAffectedHeads(store, topology, 'items', [rec({ id: 100, orderId: 10 })]);
  assert.equal([...(fromItem.get('customers')?.keys() ?? [])], ['{"id":1}']);
  const moved = await findAffectedHeads(store, topology, 'orders', [
    rec({ id: 10, customerId: 1 }),
    rec({ id: 10, customerId: 2 }),
  ]);
  assert.equal([...(moved.get('customers')?.keys() ?? [])].sort(), ['{"id":1}', '{"id":2}']);
  const orphan = await findAffectedHeads(store, topology, 'items', [rec({ id: 999, orderId: 77 })]);
  assert.is(orphan.size, 0);
});

test('upward walk through a diamond reaches the head once per key', async () => {
  const { store, topology } = await setup(DIAMOND, {
    customers: [{ id: 1 }],
    orders: [{ id: 10, customerId: 1 }],
    payments: [{ id: 50, customerId: 1 }],
  });
  const before = store.counters.roundTrips;
  const affected = await findAffectedHeads(store, topology, 'refunds', [
    rec({ id: 500, orderId: 10, paymentId: 50 }),
  ]);
  assert.equal([...(affected.get('customers')?.keys() ?? [])], ['{"id":1}']);
  assert.is(store.counters.roundTrips - before, 4, 'one call per edge on the way up');
});

test.run();
