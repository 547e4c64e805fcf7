/**
 * Terms evaluated directly (direct.ts) must give what the general evaluator gives: null values,
 * undefined arguments, builtin errors (lenient and strict), replaced builtins, and refs whose
 * path has a variable still to enumerate.
 */
import * as assert from 'node:assert/strict';
import { compile } from '../../../services/rego/index.ts';
import { test } from '../../support/suite.ts';
import { errorOf, xOf } from './helpers.ts';

test('null values and undefined arguments', () => {
  assert.equal(
    xOf('package test\np if { v := input.v; is_null(v) }', 'x := data.test.p', { input: { v: null } }),
    true,
  );
  assert.equal(
    xOf('package test\np if { upper(input.missing) }', 'x := data.test.p', { input: {} }),
    undefined,
  );
  assert.equal(xOf('package test\np := count(input.xs)', 'x := data.test.p'), undefined);
});

test('builtin errors: undefined by default, an error with its location when strict', () => {
  const rego = 'package test\np := x if { x := upper(input.n) }';
  assert.equal(xOf(rego, 'x := data.test.p', { input: { n: 1 } }), undefined);
  const err = errorOf(() =>
    compile({ 'test.rego': rego }).eval('data.test.p', { input: { n: 1 }, strictBuiltinErrors: true }),
  );
  assert.equal(err.code, 'eval_type_error');
  assert.equal(err.location?.row, 2);
});

test('a builtin replaced with `with` is called as replaced', () => {
  const rego = 'package test\np := upper(input.s)\nshout(s) := concat("", [s, "!"])';
  assert.equal(xOf(rego, 'x := data.test.p', { input: { s: 'a' } }), 'A');
  assert.equal(xOf(rego, 'x := data.test.p with upper as data.test.shout', { input: { s: 'a' } }), 'a!');
  assert.equal(xOf(rego, 'x := data.test.p with upper as "z"', { input: { s: 'a' } }), 'z');
});

test('a ref whose path has an unbound variable still enumerates', () => {
  const rego = 'package test\nnames contains n if { input.users[i].admin; n := input.users[i].name }';
  const input = {
    users: [
      { name: 'a', admin: true },
      { name: 'b', admin: false },
      { name: 'c', admin: true },
    ],
  };
  assert.deepEqual(xOf(rego, 'x := data.test.names', { input }), ['a', 'c']);
});

test('rule documents read directly: values, lookups below them, with data, base data beside rules', () => {
  const rego = `package test
readers := {"readers", "editors"}
limits := {"a": {"max": 3}}
allow if { some g in input.groups; g in readers }
max_a := limits.a.max
sub.q := 1
whole := data.test.sub
base := data.test.extra.k
f(x) := x
`;
  assert.equal(xOf(rego, 'x := data.test.allow', { input: { groups: ['x', 'editors'] } }), true);
  assert.equal(xOf(rego, 'x := data.test.allow', { input: { groups: ['x'] } }), undefined);
  assert.equal(xOf(rego, 'x := data.test.max_a'), 3);
  assert.equal(xOf(rego, 'x := data.test.limits.b.max'), undefined);
  assert.equal(
    xOf(rego, 'x := data.test.allow with data.test.readers as {"x"}', { input: { groups: ['x'] } }),
    true,
  );
  assert.deepEqual(xOf(rego, 'x := data.test.whole'), { q: 1 });
  assert.equal(xOf(rego, 'x := data.test.base', { data: { test: { extra: { k: 'v' } } } }), 'v');
  assert.equal(xOf(rego, 'x := data.test.f(2)'), 2);
});

test.run();
