/**
 * The recompute hot path alone: aggregates of W1-shaped heads (customers -> orders -> items,
 * 1:10:3) rendered as output JSON from a MemoryStore, in batches as the engine recomputes them.
 * `node --import tsx bench/recompute.ts [customers]` prints heads/s and records/s; profile it with
 * `node --cpu-prof --import tsx bench/recompute.ts`.
 */
import { linkAggregates } from '../engine/aggregate/compute.ts';
import { aggregateJson } from '../engine/aggregate/serialize.ts';
import { compileConfig } from '../engine/runtime/compile.ts';
import { MemoryStore } from '../engine/store/index.ts';
import type { RecordWrite } from '../engine/store/types.ts';
import { benchConfig } from './harness/config.ts';
import { WORKLOADS } from './workloads/index.ts';

const customers = Number(process.argv[2] ?? 3000);
const BATCH = 128;
const ROUNDS = 20;
const compiled = compileConfig(benchConfig(WORKLOADS.W1.graph));
const store = new MemoryStore(compiled.layout);
const upsert = (id: number, value: Record<string, string | number>): RecordWrite => ({
  kind: 'upsert',
  ck: `{"id":${id}}`,
  key: { id },
  value: { id, ...value },
});
const orders: RecordWrite[] = [];
const items: RecordWrite[] = [];
for (let c = 0; c < customers; c++) {
  for (let o = c * 10; o < c * 10 + 10; o++) {
    orders.push(upsert(o, { customerId: c, status: 'paid', total: o % 1000 }));
    for (let i = o * 3; i < o * 3 + 3; i++)
      items.push(upsert(i, { orderId: o, sku: `sku-${i % 500}`, quantity: 2 }));
  }
}
await store.write(
  'customers',
  Array.from({ length: customers }, (_, c) =>
    upsert(c, { name: `customer ${c}`, email: `c${c}@example.com`, tier: 'gold' }),
  ),
);
await store.write('orders', orders);
await store.write('items', items);
const heads = [
  ...(
    await store.get(
      'customers',
      Array.from({ length: customers }, (_, c) => `{"id":${c}}`),
    )
  ).values(),
];

let bytes = 0;
const started = performance.now();
for (let round = 0; round < ROUNDS; round++) {
  // Between rounds one item per head changes, as between two recomputes of a busy head.
  await store.write(
    'items',
    Array.from({ length: customers }, (_, c) =>
      upsert(c * 30 + (round % 30), {
        orderId: c * 10 + Math.floor((round % 30) / 3),
        sku: `sku-${round}`,
        quantity: round,
      }),
    ),
  );
  for (let b = 0; b < heads.length; b += BATCH) {
    const batch = heads.slice(b, b + BATCH);
    const linked = await linkAggregates(store, compiled.topology, 'customers', batch);
    for (const head of batch) bytes += Buffer.byteLength(aggregateJson(linked.tree(head)));
  }
}
const seconds = (performance.now() - started) / 1000;
const recomputes = ROUNDS * heads.length;
console.log(
  `${recomputes.toLocaleString('en-US')} head recomputes (41 records each) in ${seconds.toFixed(2)} s: ` +
    `${Math.round(recomputes / seconds).toLocaleString('en-US')} heads/s, ` +
    `${Math.round((recomputes * 41) / seconds).toLocaleString('en-US')} records/s, ${(bytes / recomputes).toFixed(0)} bytes per aggregate`,
);
