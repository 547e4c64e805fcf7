/**
 * Conformance: every case of the table runs on MemoryStore and MongoStore (MONGODB_URL, else the
 * jongodb stand-in) and must give identical answers. Per case it also proves, for every parent
 * and child of the data set, that
 *  - the compiled link predicate equals MongoDB's answer to the downward query (engine.md §3),
 *  - the in-memory evaluation of each downward and upward query document equals MongoDB's,
 *  - the upward query returns every linked parent (it may return more).
 */
import { MongoClient } from 'mongodb';
import * as assert from 'uvu/assert';
import { buildStoreEdges, compileQuery, type Query, toMongoFilter } from '../../../engine/filter/index.ts';
import { canonicalJson, compareCanonical } from '../../../engine/record/key.ts';
import {
  MemoryStore,
  MongoStore,
  type Store,
  type StoredRecord,
  sinkCollection,
} from '../../../engine/store/index.ts';
import type { JsonObject } from '../../../operators/record/json.ts';
import { startMongo } from '../../support/mongo.ts';
import { test } from '../../support/suite.ts';
import { CASES, CHILDREN, type ConformanceCase, PARENTS, type Row } from './conformance-cases.ts';

const CONFIG_ID = 'conformance';
const mongo = await startMongo();
const layout = {
  configId: CONFIG_ID,
  nodes: ['parent', 'child'],
  heads: ['parent'],
  edges: buildStoreEdges(
    CASES.map((c, i) => ({ id: `e${i}`, parent: 'parent', child: 'child', filter: c.filter })),
  ),
};
const memory = new MemoryStore(layout);
const mongoStore = new MongoStore({ ...layout, url: mongo.url, database: mongo.database });
const client = new MongoClient(mongo.url);
const records = (rows: readonly Row[]) =>
  rows.map(({ value }, id) => ({ kind: 'upsert' as const, ck: canonicalJson({ id }), key: { id }, value }));
const parentValues = PARENTS.map((r) => r.value);
const childValues = CHILDREN.map((r) => r.value);

test.before(async () => {
  await mongoStore.open();
  await client.connect();
  for (const store of [memory, mongoStore] as Store[]) {
    await store.write('parent', records(PARENTS));
    await store.write('child', records(CHILDREN));
  }
});

test.after(async () => {
  await mongoStore.close();
  await client.close();
  await mongo.stop();
});

const db = () => client.db(mongo.database);
/** The record ids of a store answer, after checking it is ordered by ck (engine.md §4). */
const ids = (list: readonly StoredRecord[]) => {
  const cks = list.map((r) => r.ck);
  assert.equal(cks, [...cks].sort(compareCanonical), 'ordered by ck');
  return list.map((r) => r.key.id as number).sort((a, b) => a - b);
};
const indexesWhere = (values: readonly JsonObject[], keep: (v: JsonObject) => boolean) =>
  values.flatMap((v, i) => (keep(v) ? [i] : []));

async function mongoFind(node: string, query: Query): Promise<number[]> {
  if (query === false) return [];
  const docs = await db().collection(sinkCollection(CONFIG_ID, node)).find(toMongoFilter(query)).toArray();
  return docs.map((d) => d.key.id as number).sort((a, b) => a - b);
}

/** Reason → what was checked on real MongoDB only for it. */
const standInNotes = new Map<string, Set<string>>();
const note = (reason: string, what: string) => {
  const set = standInNotes.get(reason) ?? new Set();
  standInNotes.set(reason, set.add(what));
};
/** Operator → [cases, of which under $not]. */
const perOperator = new Map<string, [number, number]>();

CASES.forEach((c, i) => {
  const [count, negated] = perOperator.get(c.op) ?? [0, 0];
  perOperator.set(c.op, [count + 1, negated + (c.negated ? 1 : 0)]);
  test(c.name, () => checkCase(c, `e${i}`));
});

/**
 * Which rows MongoDB's answers are compared on: all with a real server; on the stand-in, the
 * rows it answers like MongoDB (the others are listed in the report with the reason).
 */
function comparedRows(c: ConformanceCase): { parents: Set<number>; children: Set<number> } {
  const keep = (rows: readonly Row[], skip: (row: Row) => boolean) =>
    new Set(rows.flatMap((row, i) => (mongo.standIn && skip(row) ? [] : [i])));
  const parents = keep(PARENTS, (row) => !!row.standIn || !!c.standInParents?.skipParent(row.value));
  const children = keep(CHILDREN, (row) => !!row.standIn);
  if (mongo.standIn) {
    for (const row of [...PARENTS, ...CHILDREN])
      if (row.standIn) note(row.standIn, JSON.stringify(row.value));
    if (c.standInParents) note(c.standInParents.reason, `"${c.name}"`);
  }
  return { parents, children };
}

async function checkCase(c: ConformanceCase, edgeId: string): Promise<void> {
  const edge = layout.edges.find((e) => e.id === edgeId)!;
  const filter = edge.filter;
  const compared = comparedRows(c);
  const onlyCompared = (list: number[], rows: Set<number>) => list.filter((i) => rows.has(i));
  const linkedChildren = parentValues.map((p) =>
    indexesWhere(childValues, (child) => filter.links(p, child)),
  );
  const linkedParents = childValues.map((child) => indexesWhere(parentValues, (p) => filter.links(p, child)));

  const downQueries = new Map<string, number[]>();
  for (const [p, parent] of parentValues.entries()) {
    const query = filter.downward(parent);
    const evaluate = compileQuery(query);
    const inMemory = indexesWhere(childValues, (child) => evaluate({ value: child }));
    assert.equal(inMemory, linkedChildren[p], `downward in memory, parent #${p} ${JSON.stringify(parent)}`);
    if (!compared.parents.has(p)) continue;
    const key = JSON.stringify(query);
    const found = downQueries.get(key) ?? (await mongoFind('child', query));
    downQueries.set(key, found);
    assert.equal(
      onlyCompared(found, compared.children),
      onlyCompared(linkedChildren[p]!, compared.children),
      `downward ${key}, parent #${p} ${JSON.stringify(parent)}`,
    );
  }

  for (const [k, child] of childValues.entries()) {
    const query = filter.upward(child);
    const evaluate = compileQuery(query);
    const inMemory = indexesWhere(parentValues, (parent) => evaluate({ value: parent }));
    const missed = linkedParents[k]!.filter((p) => !inMemory.includes(p));
    assert.equal(
      missed,
      [],
      `upward ${JSON.stringify(query)} misses linked parents of child #${k} ${JSON.stringify(child)}`,
    );
    if (!compared.children.has(k)) continue;
    const found = await mongoFind('parent', query);
    assert.equal(
      onlyCompared(found, compared.parents),
      onlyCompared(inMemory, compared.parents),
      `upward ${JSON.stringify(query)}, child #${k} ${JSON.stringify(child)}`,
    );
  }

  for (const store of [memory, mongoStore]) {
    const label = store === memory ? 'MemoryStore' : 'MongoStore';
    const rowsOf = (rows: Set<number>) => (store === memory ? null : rows);
    const restrict = (lists: number[][], anchors: Set<number> | null, others: Set<number> | null) =>
      lists.flatMap((list, i) =>
        anchors && !anchors.has(i) ? [] : [others ? onlyCompared(list, others) : list],
      );
    const children = (await store.findChildren(edge, parentValues)).map(ids);
    const parents = (await store.findParents(edge, childValues)).map(ids);
    const [ps, cs] = [rowsOf(compared.parents), rowsOf(compared.children)];
    assert.equal(restrict(children, ps, cs), restrict(linkedChildren, ps, cs), `${label}.findChildren`);
    assert.equal(restrict(parents, cs, ps), restrict(linkedParents, cs, ps), `${label}.findParents`);
  }
}

test('report: cases per operator, cases needing real MongoDB', () => {
  const rows = [...perOperator].sort(([a], [b]) => a.localeCompare(b));
  const target = mongo.standIn ? 'the jongodb stand-in' : 'MONGODB_URL';
  console.log(
    `\nconformance cases per operator (${CASES.length} in all; MemoryStore vs MongoStore on ${target}):`,
  );
  for (const [op, [count, negated]] of rows) {
    console.log(
      `  ${op.padEnd(12)} ${String(count).padStart(3)}${negated ? ` (${negated} of them under $not)` : ''}`,
    );
  }
  if (standInNotes.size > 0) console.log('checked on real MongoDB only (MONGODB_URL), not on the stand-in:');
  for (const [reason, what] of standInNotes) console.log(`  - ${reason}: ${[...what].join(', ')}`);
  assert.ok(CASES.length > 0);
});

test.run();
