import * as assert from 'uvu/assert';
import { canonicalJson, compareCanonical } from '../../../engine/record/key.ts';
import { HashIndex } from '../../../engine/store/hash-index.ts';
import type { StoredRecord } from '../../../engine/store/types.ts';
import type { JsonObject } from '../../../operators/record/json.ts';
import { test } from '../../support/suite.ts';

const record = (key: JsonObject, value: JsonObject): StoredRecord => ({ ck: canonicalJson(key), key, value });
const byParent = () => new HashIndex((value) => [String(value.parent)]);
const cks = (records: readonly StoredRecord[]) => records.map((r) => r.ck);

/** xorshift: the same seed, the same sequence of writes. */
function seeded(seed: number): () => number {
  let x = seed;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

test('lookups stay ordered by ck through random adds, replacements, moves and removals', () => {
  const index = byParent();
  const live = new Map<string, StoredRecord>();
  const random = seeded(7);
  for (let step = 0; step < 5000; step++) {
    // Ids of varying length and a unicode key: ck order is not numeric order.
    const id = Math.floor(random() * 300);
    const key = id % 50 === 0 ? { id: `é${id}` } : { id };
    const ck = canonicalJson(key);
    const old = live.get(ck);
    if (random() < 0.25) {
      if (old) index.remove(old);
      live.delete(ck);
    } else {
      const next = record(key, { parent: Math.floor(random() * 3), version: step });
      // A new version in place of the old one, or (as before replace existed) removed and added.
      if (old && random() < 0.5) index.replace(old, next);
      else {
        if (old) index.remove(old);
        index.add(next);
      }
      live.set(ck, next);
    }
    // Sometimes many changes pile up before a lookup (the re-sort path), mostly a few (patches).
    if (random() < (step < 2500 ? 0.5 : 0.02)) {
      for (const parent of [0, 1, 2]) {
        const expected = [...live.values()]
          .filter((r) => r.value.parent === parent)
          .sort((a, b) => compareCanonical(a.ck, b.ck));
        const found = index.lookup([String(parent)]);
        assert.equal(cks(found), cks(expected), `parent ${parent} at step ${step}`);
        assert.ok(
          found.every((r, i) => r === expected[i]),
          'the current version of each record',
        );
      }
    }
  }
});

test('an order handed out is not changed by later writes (a recompute may hold it across them)', () => {
  const index = byParent();
  const child = (id: number) => record({ id }, { parent: 'p' });
  const [a, b, c, d] = [child(1), child(2), child(3), child(4)];
  for (const r of [a, c, d]) index.add(r);
  const before = index.lookup(['p']);
  assert.equal(cks(before), ['{"id":1}', '{"id":3}', '{"id":4}']);
  index.add(b);
  const replaced = record({ id: 3 }, { parent: 'p', v: 2 });
  index.remove(c);
  index.add(replaced);
  index.remove(a);
  const after = index.lookup(['p']);
  assert.equal(cks(before), ['{"id":1}', '{"id":3}', '{"id":4}'], 'the earlier answer is intact');
  assert.ok(before[1] === c);
  assert.equal(cks(after), ['{"id":2}', '{"id":3}', '{"id":4}']);
  assert.ok(after[1] === replaced);
  assert.ok(index.lookup(['p']) === after, 'unchanged since: the same array, not a copy');
});

test('a new version under the same key takes its place, in an order handed out only as a copy', () => {
  const index = byParent();
  const child = (id: number, v: number, parent = 'p') => record({ id }, { parent, v });
  const [a, b, c] = [child(1, 0), child(2, 0), child(3, 0)];
  for (const r of [c, a, b]) index.add(r);
  const before = index.lookup(['p']);
  const b2 = child(2, 1);
  index.replace(b, b2);
  const after = index.lookup(['p']);
  assert.ok(before[1] === b, 'the earlier answer is intact');
  assert.equal(cks(after), ['{"id":1}', '{"id":2}', '{"id":3}']);
  assert.ok(after[1] === b2);
  const moved = child(2, 2, 'q');
  index.replace(b2, moved);
  assert.equal(cks(index.lookup(['p'])), ['{"id":1}', '{"id":3}']);
  assert.ok(index.lookup(['q'])[0] === moved, 'a version under another key moves there');
  const alone = child(9, 0, 'r');
  index.add(alone);
  const alone2 = child(9, 1, 'r');
  index.replace(alone, alone2);
  assert.ok(index.lookup(['r']).length === 1 && index.lookup(['r'])[0] === alone2);
});

test('a record added after a lookup goes in its place by ck, in a new order', () => {
  const index = byParent();
  const child = (id: number | string) => record({ id }, { parent: 'p' });
  for (const id of [1, 3, 5]) index.add(child(id));
  const before = index.lookup(['p']);
  for (const id of [4, 'é', 0, 10]) index.add(child(id));
  assert.equal(cks(before), ['{"id":1}', '{"id":3}', '{"id":5}'], 'the earlier answer is intact');
  assert.equal(
    cks(index.lookup(['p'])),
    ['{"id":"é"}', '{"id":0}', '{"id":10}', '{"id":1}', '{"id":3}', '{"id":4}', '{"id":5}'].sort(
      compareCanonical,
    ),
  );
});

test('a key down to one record, then empty, then refilled', () => {
  const index = byParent();
  const a = record({ id: 1 }, { parent: 'p' });
  const b = record({ id: 2 }, { parent: 'p' });
  index.add(a);
  index.add(b);
  assert.equal(cks(index.lookup(['p'])), ['{"id":1}', '{"id":2}']);
  index.remove(b);
  assert.equal(cks(index.lookup(['p'])), ['{"id":1}']);
  index.remove(a);
  assert.equal(index.lookup(['p']), []);
  index.add(b);
  index.add(a);
  assert.equal(cks(index.lookup(['p'])), ['{"id":1}', '{"id":2}']);
  assert.equal(index.lookup(['absent']), []);
});

test.run();
