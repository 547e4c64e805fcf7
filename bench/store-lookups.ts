/**
 * Store lookup benchmark.
 *
 *   node --import tsx bench/store-lookups.ts
 *
 * MemoryStore: downward (children of parents) and upward (parents of children) lookups on an
 * equality edge, with 1k and 1M records in the store (half parents, half children, one child
 * per parent): lookups/s must not depend on the store size (O(matches), ratio within 3x).
 * MongoStore (MONGODB_URL, else the jongodb stand-in): requests sent for a batch of 1,000
 * lookups, which must be one per edge.
 */
import type { GenericFilter } from '../engine/filter/ast.ts';
import { buildStoreEdges } from '../engine/filter/index.ts';
import { canonicalJson } from '../engine/record/key.ts';
import {
  MemoryStore,
  MongoStore,
  type RecordWrite,
  type Store,
  type StoreEdge,
} from '../engine/store/index.ts';
import type { JsonObject } from '../operators/record/json.ts';
import { startMongo } from '../test/support/mongo.ts';

const BATCH = 1000;
const edges = buildStoreEdges([
  {
    id: 'equality',
    parent: 'customers',
    child: 'orders',
    filter: { $eq: [{ foreign: ['customerId'] }, { local: ['id'] }] } as GenericFilter,
  },
  {
    id: 'range',
    parent: 'customers',
    child: 'orders',
    filter: { $gt: [{ foreign: ['price'] }, { local: ['budget'] }] } as GenericFilter,
  },
]);
const layout = { configId: 'bench', nodes: ['customers', 'orders'], heads: ['customers'], edges };
const [equality, range] = edges as [StoreEdge, StoreEdge];

const customer = (i: number): JsonObject => ({ id: i, name: `customer ${i}`, budget: i % 100 });
const order = (i: number): JsonObject => ({
  id: i,
  customerId: i,
  price: (i * 37) % 1000,
  items: [i % 7, i % 11],
});
const upsert = (value: JsonObject): RecordWrite => {
  const key = { id: value.id as number };
  return { kind: 'upsert', ck: canonicalJson(key), key, value };
};

async function load(store: Store, perNode: number, chunk: number): Promise<void> {
  for (let start = 0; start < perNode; start += chunk) {
    const ids = Array.from({ length: Math.min(chunk, perNode - start) }, (_, k) => start + k);
    await store.write(
      'customers',
      ids.map((i) => upsert(customer(i))),
    );
    await store.write(
      'orders',
      ids.map((i) => upsert(order(i))),
    );
  }
}

/** Random anchors of one batch (a deterministic sequence, so runs compare). */
function batchOf(perNode: number, seed: number, make: (i: number) => JsonObject): JsonObject[] {
  let x = seed;
  return Array.from({ length: BATCH }, () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return make(x % perNode);
  });
}

async function lookupsPerSecond(
  find: (anchors: JsonObject[]) => Promise<readonly (readonly unknown[])[]>,
  perNode: number,
  make: (i: number) => JsonObject,
): Promise<number> {
  const batches = Array.from({ length: 50 }, (_, b) => batchOf(perNode, b + 1, make));
  for (const anchors of batches.slice(0, 5)) await find(anchors); // warm-up
  const started = process.hrtime.bigint();
  let matches = 0;
  for (const anchors of batches) for (const list of await find(anchors)) matches += list.length;
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (matches !== batches.length * BATCH) throw new Error(`expected one match per lookup, got ${matches}`);
  return (batches.length * BATCH) / seconds;
}

async function memoryRows(): Promise<string[]> {
  const rows: string[] = [];
  const rates = new Map<string, number>();
  for (const records of [1_000, 1_000_000]) {
    const perNode = records / 2;
    const store = new MemoryStore(layout);
    await load(store, perNode, 10_000);
    const down = await lookupsPerSecond((a) => store.findChildren(equality, a), perNode, customer);
    const up = await lookupsPerSecond((a) => store.findParents(equality, a), perNode, order);
    rates.set(`down ${records}`, down);
    rates.set(`up ${records}`, up);
    const label = records === 1_000 ? '1k' : '1M';
    rows.push(`| MemoryStore | ${label} | downward | ${fmt(down)} |`);
    rows.push(`| MemoryStore | ${label} | upward | ${fmt(up)} |`);
  }
  for (const dir of ['down', 'up']) {
    const ratio = rates.get(`${dir} 1000`)! / rates.get(`${dir} 1000000`)!;
    rows.push(`| MemoryStore | 1k / 1M ratio | ${dir}ward | ${ratio.toFixed(2)}x (limit 3x) |`);
  }
  return rows;
}

async function mongoRows(): Promise<string[]> {
  const mongo = await startMongo();
  const store = new MongoStore({ ...layout, url: mongo.url, database: mongo.database });
  try {
    await store.open();
    // The stand-in's upserts slow down with the size of one bulk request: load in chunks.
    await load(store, BATCH, 250);
    const target = mongo.standIn ? 'jongodb stand-in' : 'MONGODB_URL';
    const rows: string[] = [];
    const cases: [string, StoreEdge, 'down' | 'up'][] = [
      ['equality', equality, 'down'],
      ['equality', equality, 'up'],
      ['range', range, 'down'],
      ['range', range, 'up'],
    ];
    for (const [name, edge, direction] of cases) {
      const anchors =
        direction === 'down'
          ? Array.from({ length: BATCH }, (_, i) => customer(i))
          : Array.from({ length: BATCH }, (_, i) => order(i));
      const before = store.counters.roundTrips;
      const started = Date.now();
      const found =
        direction === 'down'
          ? await store.findChildren(edge, anchors)
          : await store.findParents(edge, anchors);
      const requests = store.counters.roundTrips - before;
      const matched = found.reduce((n, list) => n + list.length, 0);
      rows.push(
        `| MongoStore (${target}) | ${name} edge | ${direction}ward, ${BATCH} anchors | ${requests} request(s), ${matched} links, ${Date.now() - started} ms |`,
      );
    }
    return rows;
  } finally {
    await store.close();
    await mongo.stop();
  }
}

function fmt(n: number): string {
  return `${Math.round(n).toLocaleString('en-US')} lookups/s`;
}

const started = Date.now();
const rows = [...(await memoryRows()), ...(await mongoRows())];
console.log('command: node --import tsx bench/store-lookups.ts');
console.log(`node ${process.version}, ${(Date.now() - started) / 1000} s\n`);
console.log('| store | records / edge | lookup | result |');
console.log('|---|---|---|---|');
for (const row of rows) console.log(row);
