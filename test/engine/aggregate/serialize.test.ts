import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { seededRandom } from '../../../bench/workloads/random.ts';
import type { Aggregate } from '../../../engine/aggregate/compute.ts';
import { aggregateJson } from '../../../engine/aggregate/serialize.ts';
import type { JsonObject } from '../../../engine/record/json.ts';

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

function aggregate(depth: number, values: readonly JsonObject[]): Aggregate {
  const dependencies: Record<string, Aggregate[]> = {};
  if (depth < 3) {
    for (const child of ['orders', '7', 'refunds'].slice(0, 1 + Math.floor(random() * 3))) {
      dependencies[child] = Array.from({ length: Math.floor(random() * 4) }, () =>
        aggregate(depth + 1, values),
      );
    }
  }
  // Values are shared between aggregates, as the in-memory store shares stored records.
  return { value: pick(values), dependencies };
}

test('aggregateJson is JSON.stringify byte for byte, also when values are shared and serialized before', () => {
  const values = Array.from({ length: 30 }, () => value(0));
  for (let i = 0; i < 300; i++) {
    const a = aggregate(0, values);
    assert.is(aggregateJson(a), JSON.stringify(a));
  }
});

test('an empty dependency map and empty lists', () => {
  const a: Aggregate = { value: {}, dependencies: {} };
  assert.is(aggregateJson(a), '{"value":{},"dependencies":{}}');
  const b: Aggregate = { value: { id: 1 }, dependencies: { orders: [] } };
  assert.is(aggregateJson(b), JSON.stringify(b));
});

test.run();
