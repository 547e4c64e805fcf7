import * as assert from 'uvu/assert';
import { canonicalJson } from '../../../engine/record/key.ts';
import { test } from '../../support/suite.ts';

test('canonicalJson sorts object keys at every level, inside arrays too, and writes no spaces', () => {
  assert.is(canonicalJson({ b: 1, a: { d: [2, 1], c: null } }), '{"a":{"c":null,"d":[2,1]},"b":1}');
  assert.is(canonicalJson([{ y: 1, x: 2 }, 'z']), '[{"x":2,"y":1},"z"]');
  assert.is(canonicalJson({ a: { c: 1, b: 2 } }), '{"a":{"b":2,"c":1}}');
});

test('canonicalJson of a key already in sorted order is its JSON text', () => {
  assert.is(canonicalJson({ id: 7 }), '{"id":7}');
  assert.is(canonicalJson({ a: 'x', b: [true, { c: 1.5 }] }), '{"a":"x","b":[true,{"c":1.5}]}');
  assert.is(canonicalJson('\u00e9"'), JSON.stringify('\u00e9"'));
});

test('canonicalJson orders integer-like keys as strings, not in the numeric order objects list them', () => {
  assert.is(canonicalJson({ 9: 'a', 10: 'b' }), '{"10":"b","9":"a"}');
  assert.is(canonicalJson({ 10: 'b', a: 1 }), '{"10":"b","a":1}');
  assert.is(canonicalJson({ B: 1, a: 2, _: 3 }), '{"B":1,"_":3,"a":2}');
});

test.run();
