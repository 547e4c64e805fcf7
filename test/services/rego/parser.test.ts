import * as assert from 'node:assert/strict';
import { compile } from '../../../services/rego/index.ts';
import { parseModule, parseQuery } from '../../../services/rego/parser.ts';
import { test } from '../../support/suite.ts';
import { errorOf, xOf } from './helpers.ts';

test('v1 rule forms: constants, if bodies, contains, keyed objects, functions, default, else', () => {
  const m = parseModule(
    `package a.b
import rego.v1

c := 1
d = "x"
default allow := false
allow if { input.user == "admin" }
names contains n if { some n in input.names }
byId[id] := u if { some u in input.users; id := u.id }
short if input.x > 1
f(x) := y if { y := x * 2 }
g(x) := "small" if { x < 10 } else := "big"
`,
    'a.rego',
  );
  assert.deepEqual(m.package, ['a', 'b']);
  assert.deepEqual(
    m.rules.map((r) => [r.head.path.join('.'), r.kind, r.isDefault]),
    [
      ['c', 'complete', false],
      ['d', 'complete', false],
      ['allow', 'complete', true],
      ['allow', 'complete', false],
      ['names', 'set', false],
      ['byId', 'object', false],
      ['short', 'complete', false],
      ['f', 'function', false],
      ['g', 'function', false],
    ],
  );
  assert.ok(m.rules[8]!.else, 'else branch parsed');
});

test('v0 syntax is accepted when the module only parses as v0', () => {
  const rego = `package test
import future.keywords.in

p[x] { some x in [1, 2] }
allow { input.ok == true }
f(x) = y { y := x + 1 }
`;
  const m = parseModule(rego, 'v0.rego');
  assert.deepEqual(
    m.rules.map((r) => r.kind),
    ['set', 'complete', 'function'],
  );
  assert.deepEqual(xOf(rego), [1, 2]);
  assert.equal(xOf(rego, 'x := data.test.allow', { input: { ok: true } }), true);
  assert.equal(xOf(rego, 'x := data.test.f(1)'), 2);
});

// OPA ast/parser.go: in a v1 module `import future.keywords…` changes nothing (every keyword is on).
test('future.keywords imports are no-ops in v1; contains is still the builtin in a call', () => {
  const rego = `package test
import future.keywords
import future.keywords.contains
import future.keywords.if
import future.keywords.in
import future.keywords.every
import rego.v1

p contains x if {
  walk({"a": ["ab", "cd"]}, [_, x])
  is_string(x)
  contains(x, "b")
}
q if every s in ["ab"] { contains(s, "a") }
`;
  assert.deepEqual(xOf(rego), ['ab']);
  assert.equal(xOf(rego, 'x := data.test.q'), true);
  assert.equal(xOf('package test\np if contains("abc", "b")'), true);
  assert.deepEqual(xOf('package test\np := [x | some x in ["ab", "c"]; contains(x, "b")]'), ['ab']);
  // A keyword is still no variable.
  assert.equal(
    errorOf(() => compile({ 'k.rego': 'package k\np if { contains := 1 }' })).code,
    'rego_parse_error',
  );
});

// OPA ast/parser_test.go TestFutureImports, and the rego.v1 import check.
test('future and rego imports must name a keyword or rego.v1, and cannot be aliased', () => {
  const refused = (imp: string) => errorOf(() => compile({ 'i.rego': `package i\n${imp}\np := 1` }));
  assert.equal(refused('import future').detail, 'invalid import, must be `future.keywords`');
  assert.equal(refused('import future.a').detail, 'invalid import, must be `future.keywords`');
  assert.equal(
    refused('import future.keywords.xyz').detail,
    'unexpected keyword, must be one of [contains every if in]',
  );
  assert.equal(refused('import future.keywords as xyz').detail, '`future` imports cannot be aliased');
  assert.equal(refused('import future.keywords.in as xyz').detail, '`future` imports cannot be aliased');
  assert.equal(refused('import rego.v2').detail, 'invalid import `rego.v2`, must be `rego.v1`');
  const err = refused('import future.keywords.xyz');
  assert.equal(err.code, 'rego_parse_error');
  assert.deepEqual(err.location, { file: 'i.rego', row: 2, col: 8 });
});

test('the v0Compatible option reads v0 rules with a ref key as partial sets', () => {
  const v0 = compile({ 'm.rego': 'package test\np["a"] { true }\n' }, { v0Compatible: true });
  assert.deepEqual(
    v0.eval('x := data.test.p').map((b) => [...(b.get('x') as { values(): unknown[] }).values()]),
    [['a']],
  );
});

test('parse errors carry rego_parse_error and file:line:col', () => {
  const err = errorOf(() => parseModule('package test\n\np := [1, 2\n', 'bad.rego', 'v1'));
  assert.equal(err.code, 'rego_parse_error');
  assert.equal(err.location?.file, 'bad.rego');
  assert.equal(err.location?.row, 4);
  assert.match(err.message, /^bad\.rego:4:\d+: rego_parse_error: /);
});

test('a v1 module must use `if` before a rule body', () => {
  const err = errorOf(() => parseModule('package test\n\nallow { true }\n', 'x.rego', 'v1'));
  assert.equal(err.code, 'rego_parse_error');
  assert.match(err.detail, /`if` keyword is required/);
  assert.deepEqual([err.location?.row, err.location?.col], [3, 7]);
});

test('a module that parses neither way reports the v1 error', () => {
  const err = errorOf(() => parseModule('package test\n\np := }\n', 'y.rego'));
  assert.equal(err.code, 'rego_parse_error');
  assert.equal(err.location?.row, 3);
});

test('a module must start with a package', () => {
  const err = errorOf(() => parseModule('p := 1\n', 'z.rego'));
  assert.match(err.detail, /expected package/);
});

test('queries: expressions split by newlines and semicolons, with, not, some, every, membership', () => {
  assert.equal(parseQuery('x := 1; y := 2\nz := 3').length, 3);
  const [withExpr] = parseQuery('data.p with input as {"a": 1} with data.q as 2');
  assert.equal(withExpr!.with.length, 2);
  assert.equal(parseQuery('not data.p')[0]!.negated, true);
  assert.equal(parseQuery('some k, v in [1]')[0]!.type, 'somein');
  assert.equal(parseQuery('every x in [1] { x > 0 }')[0]!.type, 'every');
  const [member] = parseQuery('0, 1 in [1]');
  assert.equal(
    member!.type === 'term' && member!.term.type === 'call' && member!.term.name,
    'internal.member_3',
  );
});

test('operator precedence: arithmetic binds tighter than comparison, | and & build sets', () => {
  assert.equal(xOf('package test\np := 1 + 2 * 3 == 7'), true);
  assert.deepEqual(xOf('package test\np := {1, 2} | {3} & {3, 4}'), [1, 2, 3]);
  assert.equal(xOf('package test\np := (1 + 2) * 3'), 9);
  assert.equal(xOf('package test\np := -1 - -2'), 1);
});

test('terms: raw strings, escapes, sets, empty set, comprehensions across lines', () => {
  assert.equal(xOf('package test\np := `a\\nb`'), 'a\\nb');
  assert.equal(xOf('package test\np := "a\\u0041\\n"'), 'aA\n');
  assert.deepEqual(xOf('package test\np := set()'), []);
  assert.deepEqual(
    xOf(`package test
p := [y |
  some x in [1, 2, 3]
  y := x * 10
]`),
    [10, 20, 30],
  );
  assert.deepEqual(xOf('package test\np := {k: v | some k, v in {"a": 1}}'), { a: 1 });
});

test('a non-terminated string is a parse error at its start', () => {
  const err = errorOf(() => parseModule('package test\np := "abc\n', 's.rego', 'v1'));
  assert.deepEqual([err.code, err.location?.row, err.location?.col], ['rego_parse_error', 2, 6]);
});

test('v0 forms: several bodies are alternatives, else without value, default, partial objects', () => {
  const rego = `package test
p { input.a == 1 } { input.b == 1 }
q = "x" { false } else = "y" { true }
r[k] = v { some k, v in {"a": 1} }
default d = 7
`;
  const m = parseModule(rego, 'v0.rego', 'v0');
  assert.deepEqual(
    m.rules.map((r) => [r.head.path[0], r.kind]),
    [
      ['p', 'complete'],
      ['p', 'complete'],
      ['q', 'complete'],
      ['r', 'object'],
      ['d', 'complete'],
    ],
  );
  const policy = compile({ 'v0.rego': rego }, { v0Compatible: true });
  const x = (q: string, input: unknown = {}) => policy.eval(`x := ${q}`, { input })[0]?.get('x');
  assert.equal(x('data.test.p', { b: 1 }), true);
  assert.equal(x('data.test.p', { c: 1 }), undefined);
  assert.equal(x('data.test.q'), 'y');
  assert.equal(x('data.test.d'), 7);
});

test('v1 forms: every with key and value, nested comprehensions, chained with, ref heads with vars', () => {
  assert.equal(xOf('package test\np if { every i, x in [10, 20] { x == (i + 1) * 10 } }'), true);
  assert.deepEqual(xOf('package test\np := [[y | some y in xs] | some xs in [[1], [2, 3]]]'), [[1], [2, 3]]);
  assert.equal(
    xOf('package test\np := input.a + data.b', 'x := data.test.p with input.a as 1 with data.b as 2'),
    3,
  );
  assert.deepEqual(xOf('package test\np[k].v := n if { some k, n in {"a": 1} }'), { a: { v: 1 } });
});

test('errors inside bodies point at the offending token', () => {
  const cases: [string, number, number][] = [
    ['package test\np if {\n  x := \n}\n', 3, 8],
    ['package test\np if { input.x == }\n', 2, 19],
    ['package test\nf(x := 1\n', 2, 5],
    ['package test\np := {"a": 1\n', 3, 1],
  ];
  for (const [source, row, col] of cases) {
    const err = errorOf(() => parseModule(source, 'e.rego', 'v1'));
    assert.equal(err.code, 'rego_parse_error', source);
    assert.deepEqual([err.location?.row, err.location?.col], [row, col], source);
  }
});

test.run();
