import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { seededRandom } from '../../../bench/workloads/random.ts';
import { type AggregateForm, objectForm } from '../../../engine/aggregate/compute.ts';
import { jsonForm } from '../../../engine/aggregate/serialize.ts';
import type { JsonObject } from '../../../engine/record/json.ts';
import type { StoredRecord } from '../../../engine/store/types.ts';

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
  readonly record: StoredRecord;
  readonly children: ReadonlyArray<readonly [string, Tree[]]>;
}

function tree(depth: number, records: readonly StoredRecord[]): Tree {
  const children: Array<readonly [string, Tree[]]> = [];
  if (depth < 3) {
    for (const child of ['orders', '7', 'refunds'].slice(0, Math.floor(random() * 4))) {
      children.push([
        child,
        Array.from({ length: Math.floor(random() * 4) }, () => tree(depth + 1, records)),
      ]);
    }
  }
  // Records are shared between trees, as the in-memory store shares stored records.
  return { record: pick(records), children };
}

function render<T>(t: Tree, form: AggregateForm<T>): T {
  return form(
    t.record,
    t.children.map(([name, members]) => [name, members.map((m) => render(m, form))] as const),
  );
}

test('the JSON form is JSON.stringify of the object form, byte for byte, with and without cached value texts', () => {
  const values = Array.from({ length: 30 }, () => value(0));
  const records: StoredRecord[] = values.flatMap((v, i) => [
    { ck: `{"id":${i}}`, key: { id: i }, value: v },
    { ck: `{"id":${i}}`, key: { id: i }, value: v, valueJson: JSON.stringify(v) },
  ]);
  for (let i = 0; i < 300; i++) {
    const t = tree(0, records);
    assert.is(render(t, jsonForm), JSON.stringify(render(t, objectForm)));
  }
});

test('no dependencies and empty lists', () => {
  const record: StoredRecord = { ck: '{"id":1}', key: { id: 1 }, value: { id: 1 } };
  assert.is(jsonForm(record, []), '{"value":{"id":1},"dependencies":{}}');
  assert.is(jsonForm(record, [['orders', []]]), '{"value":{"id":1},"dependencies":{"orders":[]}}');
});

test.run();
