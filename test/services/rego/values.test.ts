/**
 * JSON objects become Rego objects whose fields are converted when read (values.ts): every
 * operation must see the same object as an eager conversion would give.
 */
import * as assert from 'node:assert/strict';
import { equal, fromJSON, keyOf, RegoObject, toJSON } from '../../../services/rego/values.ts';
import { test } from '../../support/suite.ts';

const json = { b: { c: [1, { d: null }] }, a: 'x', n: null, f: false };
const eager = () => new RegoObject(Object.entries(json).map(([k, v]) => [k, fromJSON(v)]));

test('reads, sizes and missing keys without converting the whole object', () => {
  const o = fromJSON(json) as RegoObject;
  assert.equal(o.size, 4);
  assert.equal(o.get('a'), 'x');
  assert.equal(o.get('n'), null);
  assert.equal(o.get('f'), false);
  assert.equal(o.has('n'), true);
  assert.equal(o.get('missing'), undefined);
  assert.equal(o.has('missing'), false);
  // JSON keys are strings: the number 1 is another key.
  assert.equal((fromJSON({ 1: 'one' }) as RegoObject).get(1), undefined);
  assert.equal(o.get('toString'), undefined);
  // A field read twice is the same value.
  assert.equal(o.get('b'), o.get('b'));
});

test('iteration, equality, keys and JSON are those of an eager conversion, before and after reads', () => {
  const untouched = fromJSON(json) as RegoObject;
  assert.ok(equal(untouched, eager()));
  assert.equal(keyOf(untouched), keyOf(eager()));
  const read = fromJSON(json) as RegoObject;
  read.get('b');
  assert.deepEqual(read.keys(), ['b', 'a', 'n', 'f']);
  assert.deepEqual(toJSON(read), toJSON(eager()));
  assert.ok(read.get('b') === read.pairs()[0]![1], 'a converted field is kept when materialized');
});

test('JSON of a lazy object, read or not: sorted keys, undefined fields null, as eager', () => {
  const partly = fromJSON({ ...json, u: undefined }) as RegoObject;
  partly.get('b');
  const want = JSON.stringify(toJSON(new RegoObject([...eager().pairs(), ['u', null]])));
  assert.equal(JSON.stringify(toJSON(partly)), want);
  assert.equal(JSON.stringify(toJSON(fromJSON({ ...json, u: undefined }))), want);
});

test('changing a lazy object materializes it first', () => {
  const o = fromJSON({ a: 1, b: 2 }) as RegoObject;
  o.set('c', 3);
  o.delete('a');
  assert.deepEqual(toJSON(o), { b: 2, c: 3 });
  assert.equal(o.size, 2);
});

test.run();
