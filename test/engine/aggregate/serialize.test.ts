import * as assert from 'uvu/assert';
import { seededRandom } from '../../../bench/workloads/random.ts';
import { type AggregateTree, aggregateObject } from '../../../engine/aggregate/compute.ts';
import { aggregateJson } from '../../../engine/aggregate/serialize.ts';
import type { StoredRecord } from '../../../engine/store/types.ts';
import type { JsonObject } from '../../../operators/record/json.ts';
import { test } from '../../support/suite.ts';

const random = seededRandom(7);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
const STRINGS = [
  '',
  'plain',
  'quote " and \\ backslash',
  'line\nbreak\ttab',
  'é 漢字 😀',
  '\u0000\u001f',
  '</script>',
];

function value(depth: number): JsonObject {
  const result: JsonObject = {};
  for (let i = 0; i < 1 + Math.floor(random() * 4); i++) {
    const key = pick(['id', 'name', '10', '2', 'ü', 'nested', 'list']);
    const kind = Math.floor(random() * 6);
    result[key] =
      kind === 0
        ? pick(STRINGS)
        : kind === 1
          ? random() * 1e6 - 5e5
          : kind === 2
            ? null
            : kind === 3
              ? random() < 0.5
              : kind === 4 && depth < 2
                ? value(depth + 1)
                : [pick(STRINGS), 1, null, depth < 2 ? value(depth + 1) : {}];
  }
  return result;
}

interface Tree {
  readonly node: string;
  readonly record: StoredRecord;
  readonly children: ReadonlyArray<readonly [string, Tree[]]>;
}

function tree(node: string, depth: number, records: readonly StoredRecord[]): Tree {
  const children: Array<readonly [string, Tree[]]> = [];
  if (depth < 3) {
    // '7' and '10' are array-index names: JSON.stringify lists them first, in numeric order.
    // '__proto__' is a node id like any other, not the object's prototype.
    for (const child of ['orders', '7', '__proto__', 'refunds', '10'].slice(0, Math.floor(random() * 6))) {
      children.push([
        child,
        Array.from({ length: Math.floor(random() * 4) }, () => tree(child, depth + 1, records)),
      ]);
    }
  }
  // Values are shared between trees, as the in-memory store shares stored records; each position
  // gets its own record object, which is what the walk tells positions apart by.
  return { node, record: { ...pick(records) }, children };
}

/** The walk of a hand-built tree (the engine's comes from `linkAggregates`). */
function walkOf(root: Tree): AggregateTree {
  const byRecord = new Map<StoredRecord, Tree>();
  const index = (t: Tree) => {
    byRecord.set(t.record, t);
    for (const [, members] of t.children) members.forEach(index);
  };
  index(root);
  return {
    node: root.node,
    record: root.record,
    dependencies: (nodeId, record) => {
      const t = byRecord.get(record);
      assert.ok(t && t.node === nodeId, 'asked for a record of the node it belongs to');
      return t.children.map(([child, members]) => [child, members.map((m) => m.record)] as const);
    },
  };
}

test('the JSON form is JSON.stringify of the object form, byte for byte, with and without cached value texts', () => {
  const values = Array.from({ length: 30 }, () => value(0));
  const records: StoredRecord[] = values.flatMap((v, i) => [
    { ck: `{"id":${i}}`, key: { id: i }, value: v },
    { ck: `{"id":${i}}`, key: { id: i }, value: v, valueJson: JSON.stringify(v) },
  ]);
  let protoNames = 0;
  for (let i = 0; i < 300; i++) {
    const t = tree('customers', 0, records);
    const walk = walkOf(t);
    const object = aggregateObject(walk);
    assert.is(aggregateJson(walk), JSON.stringify(object));
    if (t.children.some(([child]) => child === '__proto__')) {
      protoNames++;
      assert.ok(Object.hasOwn(object.dependencies, '__proto__'), 'a node named __proto__ is a property');
    }
  }
  assert.ok(protoNames > 10, `the trees name __proto__ often enough (${protoNames})`);
});

test('no dependencies and empty lists', () => {
  const record: StoredRecord = { ck: '{"id":1}', key: { id: 1 }, value: { id: 1 } };
  const leaf = walkOf({ node: 'customers', record, children: [] });
  assert.is(aggregateJson(leaf), '{"value":{"id":1},"dependencies":{}}');
  const empty = walkOf({ node: 'customers', record, children: [['orders', []]] });
  assert.is(aggregateJson(empty), '{"value":{"id":1},"dependencies":{"orders":[]}}');
});

test.run();
