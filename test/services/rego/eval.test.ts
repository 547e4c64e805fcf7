import * as assert from 'node:assert/strict';
import { compile } from '../../../services/rego/index.ts';
import { test } from '../../support/suite.ts';
import { errorOf, solutions, xOf } from './helpers.ts';

test('undefined is not false: a failing body leaves the rule undefined, default gives a value', () => {
  assert.equal(xOf('package test\np if { false }'), undefined);
  assert.equal(xOf('package test\ndefault p := false\np if { false }'), false);
  assert.equal(xOf('package test\np if { false }', 'x := true; not data.test.p'), true);
  // A false expression fails the body; a false value is still a value.
  assert.equal(xOf('package test\np := false'), false);
  assert.deepEqual(solutions({ t: 'package test\np := false' }, 'data.test.p'), []);
});

test('a rule of the package is called without its package from another module of it', () => {
  const modules = {
    'a.rego': 'package test\nimport rego.v1\np if twice(2) == 4\nq := r',
    'b.rego': 'package test\nimport rego.v1\ntwice(n) := n * 2\nr := "from b"',
  };
  assert.deepEqual(solutions(modules, 'x := data.test.p'), [{ x: true }]);
  assert.deepEqual(solutions(modules, 'x := data.test.q'), [{ x: 'from b' }]);
  const other = { 'c.rego': 'package other\nimport rego.v1\nr := 1', 'd.rego': 'package test\nq := r' };
  assert.equal(errorOf(() => solutions(other, 'x := data.test.q')).code, 'rego_unsafe_var_error');
});

test('complete rules: one value from many bodies; different values conflict', () => {
  assert.equal(xOf('package test\np := 1 if { true }\np := 1 if { true }'), 1);
  const err = errorOf(() => xOf('package test\np := 1 if { true }\np := 2 if { true }'));
  assert.equal(err.code, 'eval_conflict_error');
  assert.match(err.detail, /rule data\.test\.p produced conflicting values/);
});

test('partial sets and objects collect every solution; object key conflicts are errors', () => {
  const rego = `package test
s contains x if { some x in input.xs; x > 1 }
o[k] := v if { some k, v in input.m }
`;
  assert.deepEqual(xOf(rego, 'x := data.test.s', { input: { xs: [1, 2, 3, 3] } }), [2, 3]);
  assert.deepEqual(xOf(rego, 'x := data.test.o', { input: { m: { a: 1, b: 2 } } }), { a: 1, b: 2 });
  const err = errorOf(() =>
    xOf('package test\no[k] := v if { some v in [1, 2]; k := "a" }', 'x := data.test.o'),
  );
  assert.equal(err.code, 'eval_conflict_error');
  assert.match(err.detail, /object keys must be unique/);
});

test('refs enumerate virtual documents with unbound keys', () => {
  const rego = `package test
users := {"a": {"admin": true}, "b": {"admin": false}}
admins contains name if { users[name].admin }
`;
  assert.deepEqual(xOf(rego, 'x := data.test.admins'), ['a']);
  assert.deepEqual(
    solutions({ t: rego }, 'data.test.users[k].admin == false').map((s) => s.k),
    ['b'],
  );
});

test('functions: several definitions, else, conflicting outputs', () => {
  const rego = `package test
size(n) := "small" if { n < 10 } else := "medium" if { n < 100 } else := "large"
abs(n) := n if n >= 0
abs(n) := -n if n < 0
`;
  assert.equal(xOf(rego, 'x := data.test.size(5)'), 'small');
  assert.equal(xOf(rego, 'x := data.test.size(50)'), 'medium');
  assert.equal(xOf(rego, 'x := data.test.size(500)'), 'large');
  assert.equal(xOf(rego, 'x := data.test.abs(-3)'), 3);
  const err = errorOf(() => xOf('package test\nf(_) := 1\nf(_) := 2', 'x := data.test.f(0)'));
  assert.equal(err.code, 'eval_conflict_error');
  assert.match(err.detail, /functions must not produce multiple outputs/);
});

test('every, some … in, not and comprehensions', () => {
  const rego = `package test
all_positive if { every x in input.xs { x > 0 } }
has_two if { some x in input.xs; x == 2 }
no_negative if { not any_negative }
any_negative if { some x in input.xs; x < 0 }
doubled := [y | some x in input.xs; y := x * 2]
`;
  const input = { input: { xs: [1, 2, 3] } };
  assert.equal(xOf(rego, 'x := data.test.all_positive', input), true);
  assert.equal(xOf(rego, 'x := data.test.has_two', input), true);
  assert.equal(xOf(rego, 'x := data.test.no_negative', input), true);
  assert.deepEqual(xOf(rego, 'x := data.test.doubled', input), [2, 4, 6]);
  assert.equal(xOf(rego, 'x := data.test.all_positive', { input: { xs: [1, -1] } }), undefined);
  assert.equal(xOf(rego, 'x := data.test.all_positive', { input: { xs: [] } }), true);
});

test('with replaces input, data and functions for one expression', () => {
  const rego = `package test
p := input.x
q := data.cfg.limit
double(n) := n * 2
r := double(2)
`;
  assert.equal(xOf(rego, 'x := data.test.p with input as {"x": 7}'), 7);
  assert.equal(xOf(rego, 'x := data.test.p with input.x as 8', { input: { x: 1 } }), 8);
  assert.equal(xOf(rego, 'x := data.test.q with data.cfg.limit as 3', { data: { cfg: { limit: 1 } } }), 3);
  assert.equal(xOf(rego, 'x := data.test.r with data.test.double as 99'), 99);
  assert.equal(xOf(rego, 'x := count([1, 2]) with count as 42'), 42);
  assert.deepEqual(
    xOf('package test\np := [input.a, input.b]', 'x := data.test.p with input.a as 1 with input.b as 2'),
    [1, 2],
  );
  const err = errorOf(() => compile({}).eval('x := 1 with foo as 2'));
  assert.equal(err.code, 'rego_compile_error');
  assert.match(err.detail, /with keyword target must reference existing input, data, or a function/);
});

test('the body is reordered so that variables are bound before use', () => {
  assert.equal(
    xOf('package test\np if { x > 1; x = input.a }', 'x := data.test.p', { input: { a: 2 } }),
    true,
  );
});

test('unsafe variables are a compile error with the position', () => {
  const err = errorOf(() => compile({ 'u.rego': 'package test\n\np if { x > 1 }\n' }));
  assert.equal(err.code, 'rego_unsafe_var_error');
  assert.equal(err.detail, 'var x is unsafe');
  assert.equal(err.location?.row, 3);
  const headErr = errorOf(() => compile({ 'h.rego': 'package test\np := y if { true }\n' }));
  assert.equal(headErr.code, 'rego_unsafe_var_error');
});

test('recursion through rules or functions is a compile-time rego_recursion_error', () => {
  const err = errorOf(() => compile({ 'r.rego': 'package test\np if { q }\nq if { p }\n' }));
  assert.equal(err.code, 'rego_recursion_error');
  assert.equal(err.detail, 'rule data.test.p is recursive: data.test.p -> data.test.q -> data.test.p');
  assert.deepEqual([err.location?.file, err.location?.row], ['r.rego', 2]);
  const fn = errorOf(() => compile({ 'f.rego': 'package test\nf(x) := y if { y := f(x) }\n' }));
  assert.equal(fn.code, 'rego_recursion_error');
  const whole = errorOf(() => compile({ 'w.rego': 'package test\np := count(data.test)\n' }));
  assert.equal(whole.code, 'rego_recursion_error');
  // Reading another package's rules is not recursion.
  assert.equal(xOf('package test\np := data.other.q\n', 'x := data.test.p'), undefined);
});

test(':= assigns a variable once, and not after it was used', () => {
  const twice = errorOf(() => compile({ 'a.rego': 'package test\np if { x := 1; x := 2 }\n' }));
  assert.deepEqual([twice.code, twice.detail], ['rego_compile_error', 'var x assigned above']);
  const used = errorOf(() => compile({ 'b.rego': 'package test\np if { x = 1; x := 2 }\n' }));
  assert.deepEqual([used.code, used.detail], ['rego_compile_error', 'var x referenced above']);
  // A comprehension has its own scope.
  assert.deepEqual(xOf('package test\np := [x | x := 1] if { x := 2; x > 1 }'), [1]);
});

test('unknown functions are a compile error naming them', () => {
  const err = errorOf(() => compile({ 'f.rego': 'package test\np := nope.fn(1)\n' }));
  assert.equal(err.code, 'rego_type_error');
  assert.match(err.detail, /undefined function nope\.fn/);
});

test('imports alias data and input refs', () => {
  const rego = `package test
import data.lib.roles
import input.user as u
p if { roles[u] == "admin" }
`;
  assert.equal(
    xOf(rego, 'x := data.test.p', { input: { user: 'ann' }, data: { lib: { roles: { ann: 'admin' } } } }),
    true,
  );
});

test('integer literals beyond 2^53 compare, key and print exactly', () => {
  assert.equal(xOf('package test\np := 28857836529306024611913 != 28857836529306024611912'), true);
  assert.equal(xOf('package test\np := 9007199254740993 > 9007199254740992'), true);
  assert.equal(xOf('package test\np := count({9007199254740993, 9007199254740992})'), 2);
  assert.equal(
    xOf('package test\np := sprintf("%d %v", [123456789123456789123, -123456789123456789123])'),
    '123456789123456789123 -123456789123456789123',
  );
});

test('print sends its arguments to the print hook and always succeeds', () => {
  const lines: string[] = [];
  const rego = 'package test\np if { print("user", input.user, input.missing, {1}); input.user == "ann" }';
  assert.deepEqual(
    solutions({ t: rego }, 'x := data.test.p', { input: { user: 'ann' }, print: (l) => lines.push(l) }),
    [{ x: true }],
  );
  assert.deepEqual(lines, ['user ann <undefined> {1}']);
  assert.equal(xOf(rego, 'x := data.test.p', { input: { user: 'ann' } }), true);
});

test('a query binds each solution of its variables', () => {
  const all = solutions({}, 'some x in [1, 2, 3]; x > 1');
  assert.deepEqual(all, [{ x: 2 }, { x: 3 }]);
});

test('rules of a package are known by name in every module of that package', () => {
  const modules = {
    'a.rego': 'package shared\nallow if "admin" in input.groups',
    'b.rego': 'package shared\ndeny if not allow',
    'c.rego': 'package other\nallow := true\nq if allow',
  };
  assert.deepEqual(solutions(modules, 'x := data.shared.deny', { input: { groups: [] } }), [{ x: true }]);
  assert.deepEqual(solutions(modules, 'x := data.shared.deny', { input: { groups: ['admin'] } }), []);
  // Another package's rule of the same name stays its own.
  assert.deepEqual(solutions(modules, 'x := data.other.q'), [{ x: true }]);
});

test('functions, partial sets and ref heads of another module of the package are called unqualified', () => {
  const modules = {
    'a.rego': 'package shared\nx := [level(2), count(roles), a.b]\nw if allow with is_admin as true',
    'b.rego':
      'package shared\nlevel(n) := n * 10\nroles contains r if some r in input.roles\na.b := "ref"\nallow if is_admin\nis_admin := false',
  };
  assert.deepEqual(solutions(modules, 'x := data.shared.x', { input: { roles: ['r1', 'r2'] } }), [
    { x: [20, 2, 'ref'] },
  ]);
  assert.deepEqual(solutions(modules, 'x := data.shared.w'), [{ x: true }]);
});

test.run();
