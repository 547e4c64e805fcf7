/**
 * Rule indexing (rule-index.ts) only skips rules whose `input.x == const` guard cannot hold: the
 * results must be those of evaluating every rule, including unguarded rules, `else` chains,
 * conflicts, `with` on the input and a replaced `equal`.
 */
import * as assert from 'node:assert/strict';
import { BUILTINS } from '../../../services/rego/builtins/index.ts';
import { compileModules } from '../../../services/rego/compiler.ts';
import { parseModule } from '../../../services/rego/parser.ts';
import { test } from '../../support/suite.ts';
import { errorOf, xOf } from './helpers.ts';

const ROUTES = `package test
default allow := false
allow if { input.method == "GET"; input.path == "/a" }
allow if { input.path == "/b"; "admin" in input.groups }
allow if { "root" in input.groups }
allow if { "/c" = input.path }
routes contains "a" if input.path == "/a"
routes contains "any" if input.path
routes contains "b" if input.path == "/b"
`;

test('the rule set is indexed on the input path that tells most rules apart', () => {
  const plan = compileModules([parseModule(ROUTES, 'routes.rego')], BUILTINS);
  const allow = plan.root.children.get('test')!.children.get('allow')!.ruleSet!;
  assert.deepEqual(allow.index?.path, ['path']);
  assert.equal(allow.index?.byValue.size, 3);
  // Unguarded rules stay in every candidate list, in source order.
  assert.deepEqual(
    [...allow.index!.byValue.values()].map((rules) => rules.map((r) => allow.rules.indexOf(r))),
    [
      [0, 2],
      [1, 2],
      [2, 3],
    ],
  );
  assert.deepEqual(
    allow.index?.unguarded.map((r) => allow.rules.indexOf(r)),
    [2],
  );
});

test('indexed rules decide as if every rule ran', () => {
  const allow = (input: unknown) => xOf(ROUTES, 'x := data.test.allow', { input });
  assert.equal(allow({ method: 'GET', path: '/a', groups: [] }), true);
  assert.equal(allow({ method: 'POST', path: '/a', groups: [] }), false);
  assert.equal(allow({ path: '/b', groups: ['admin'] }), true);
  assert.equal(allow({ path: '/b', groups: [] }), false);
  assert.equal(allow({ path: '/z', groups: ['root'] }), true);
  assert.equal(allow({ groups: ['root'] }), true);
  assert.equal(allow({ path: '/c' }), true);
  assert.equal(allow(undefined), false);
  const routes = (input: unknown) => xOf(ROUTES, 'x := data.test.routes', { input });
  assert.deepEqual(routes({ path: '/a' }), ['a', 'any']);
  assert.deepEqual(routes({ path: '/b' }), ['any', 'b']);
  assert.deepEqual(routes({ path: '/q' }), ['any']);
});

test('with on the input and a replaced equal see every rule', () => {
  assert.equal(xOf(ROUTES, 'x := data.test.allow with input as {"path": "/c"}'), true);
  assert.equal(xOf(ROUTES, 'x := data.test.allow with input.path as "/c"', { input: { path: '/a' } }), true);
  // `equal` replaced by a function that always holds: every guarded rule can hold.
  const anyEqual = `${ROUTES}\nyes(_, _) := true\n`;
  assert.equal(
    xOf(anyEqual, 'x := data.test.allow with equal as data.test.yes', {
      input: { path: '/q', method: 'GET' },
    }),
    true,
  );
});

test('else chains are never skipped, and conflicts between candidates are still found', () => {
  const rego = `package test
p := 1 if { input.k == "a" } else := 2
p := 3 if { input.k == "b" }
p := 4 if { input.k == "c" }
`;
  assert.equal(xOf(rego, 'x := data.test.p', { input: { k: 'a' } }), 1);
  assert.equal(xOf(rego, 'x := data.test.p', { input: { k: 'z' } }), 2);
  // k == "b": the first rule's else gives 2, the second rule 3.
  const err = errorOf(() => xOf(rego, 'x := data.test.p', { input: { k: 'b' } }));
  assert.equal(err.code, 'eval_conflict_error');
});

test.run();
