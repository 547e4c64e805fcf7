import * as assert from 'node:assert/strict';
import type { CompiledPlan } from '../../../services/rego/compiler.ts';
import { loadCaseFiles } from '../../../services/rego/conformance/load.ts';
import type { ConformanceCase } from '../../../services/rego/conformance/run-case.ts';
import { generatedRuleSet } from '../../../services/rego/generated.ts';
import { compile, type Policy, RegoObject, RegoSet, toJSON } from '../../../services/rego/index.ts';
import { test } from '../../support/suite.ts';
import { conformanceCasesDir, errorOf } from './helpers.ts';

const RULES = `package t

default allow := false
allow if "admin" in input.user.groups
allow if {
  input.method == "GET"
  some g in input.user.groups
  g in {"readers", "editors"}
}

header_ok if {
  input.headers["x-version"] == "2"
  startswith(input.headers["content-type"], "application/json")
}

v0_style if input.user.groups[_] == "ops"
some_kv if { some k, v in input.headers; k == "x-version"; v == "2" }
missing_is_undefined if not input.user.nothing
null_field := input.user.nullable
proto_key := input.constructor
owner_names := [r.name | some r in input.records; r.owner == input.user.name]
owners := {r.owner | some r in input.records}
by_name := {r.name: r.owner | some r in input.records}
level := 2 if input.user.level > 5
level := 1 if input.user.level <= 5
not_admin if not allow
rank := count(input.user.groups) + 1
uses_rule if { allow; header_ok }
object_value := {"user": input.user.name, "groups": input.user.groups}
same_index if { some x in input.lists[i]; input.other[i] == x }
roles contains "member" if input.user.name
roles contains g if some g in input.user.groups
roles contains "ops" if "ops" in input.user.groups
can_read if "readers" in roles
`;

const policy = compile({ 't.rego': RULES });
const plan = (policy as unknown as { plan: CompiledPlan }).plan;

/** The rule set at data.t.<name>. */
function ruleSet(name: string) {
  return plan.root.children.get('t')!.children.get(name)!.ruleSet!;
}

/** `data.t.<name>` through the query's fast path, and through the closure evaluator (a `with` turns generated code off). */
function both(p: Policy, name: string, input: unknown): [unknown, unknown] {
  const value = (query: string) => {
    const x = p.eval(query, { input })[0]?.get('x');
    return x === undefined ? undefined : toJSON(x);
  };
  return [value(`x := data.t.${name}`), value(`x := data.t.${name} with data.generated_off as true`)];
}

const INPUTS: unknown[] = [
  {
    user: { name: 'ann', groups: ['staff', 'readers'], level: 7, nullable: null },
    method: 'GET',
    headers: { 'x-version': '2', 'content-type': 'application/json; charset=utf-8' },
    records: [
      { name: 'a', owner: 'ann' },
      { name: 'b', owner: 'bob' },
    ],
  },
  {
    user: { name: 'bob', groups: ['admin', 'ops'], level: 3, nullable: undefined },
    method: 'POST',
    headers: { 'x-version': '1' },
    records: [],
    constructor: 'own field',
  },
  { user: { name: 'eve', groups: 'not-a-list' }, method: 'GET' },
  { user: null, lists: [[1, 2], [3]], other: [5, 3] },
  { lists: [[1, 2], [3]], other: [3, 5] },
  'not an object',
  Object.assign(Object.create(null), { user: { name: 'zed', groups: ['editors'] }, method: 'GET' }),
];

test('generated rules give the closure evaluator’s values, on inputs of every shape', () => {
  const names = [...RULES.matchAll(/^(?:default )?([a-z_0-9]+)\b/gm)]
    .map((m) => m[1]!)
    .filter((n) => n !== 'package');
  for (const name of new Set(names)) {
    assert.ok(generatedRuleSet(ruleSet(name), plan), `data.t.${name} is generated`);
    for (const input of INPUTS) {
      const [fast, closures] = both(policy, name, input);
      assert.deepEqual(fast, closures, `data.t.${name} on ${JSON.stringify(input)}`);
    }
  }
  // A few values spelled out, so that both paths being wrong the same way fails too.
  assert.deepEqual(both(policy, 'allow', INPUTS[0])[0], true);
  assert.deepEqual(both(policy, 'allow', INPUTS[2])[0], false);
  assert.deepEqual(both(policy, 'null_field', INPUTS[1])[0], null);
  assert.deepEqual(both(policy, 'proto_key', INPUTS[0])[0], undefined);
  assert.deepEqual(both(policy, 'proto_key', INPUTS[1])[0], 'own field');
  assert.deepEqual(both(policy, 'by_name', INPUTS[0])[0], { a: 'ann', b: 'bob' });
  assert.deepEqual(both(policy, 'allow', INPUTS[6])[0], true);
  assert.deepEqual(both(policy, 'same_index', INPUTS[3])[0], true);
  assert.deepEqual(both(policy, 'same_index', INPUTS[4])[0], undefined);
  assert.deepEqual(both(policy, 'roles', INPUTS[1])[0], ['admin', 'member', 'ops']);
  assert.deepEqual(both(policy, 'roles', INPUTS[4])[0], []);
  assert.deepEqual(both(policy, 'can_read', INPUTS[0])[0], true);
});

test('an input given as a Rego value (objects, sets) is read like JSON', () => {
  const input = (groups: RegoSet) =>
    new RegoObject([
      ['method', 'GET'],
      ['user', new RegoObject([['groups', groups]])],
    ]);
  const allow = (groups: RegoSet) =>
    policy.eval('x := data.t.allow', { inputValue: input(groups) })[0]?.get('x');
  assert.equal(allow(new RegoSet(['editors'])), true);
  assert.equal(allow(new RegoSet(['staff'])), false);
  assert.equal(allow(new RegoSet(['admin'])), true);
});

test('conflicts and builtin errors are the closure evaluator’s: errors, or undefined when not strict', () => {
  const p = compile({
    't.rego':
      'package t\nv := 1 if input.a\nv := 2 if input.b\nn := to_number(input.s)\nt := time.now_ns() == time.now_ns()',
  });
  assert.deepEqual(p.eval('x := data.t.v', { input: { a: true } })[0]?.get('x'), 1);
  const conflict = errorOf(() => p.eval('x := data.t.v', { input: { a: true, b: true } }));
  assert.equal(conflict.code, 'eval_conflict_error');
  assert.deepEqual(p.eval('x := data.t.n', { input: { s: 'nope' } }), []);
  const strict = errorOf(() => p.eval('x := data.t.n', { input: { s: 'nope' }, strictBuiltinErrors: true }));
  assert.equal(strict.code, 'eval_builtin_error');
  assert.equal(p.eval('x := data.t.n', { input: { s: '12' } })[0]?.get('x'), 12);
  assert.equal(p.eval('x := data.t.t')[0]?.get('x'), true);
});

test('rules outside the fragment are not generated and still evaluate', () => {
  const p = compile({
    't.rego':
      'package t\no[k] := 1 if some k in input.xs\nf(x) := x + 1\nuses_f := f(1)\nuses_every if every x in input.xs { x > 0 }\nuses_data if data.base.x == 1\nwith_input if allow with input as {"ok": true}\nallow if input.ok',
  });
  const p2 = (p as unknown as { plan: CompiledPlan }).plan;
  const at = (name: string) => p2.root.children.get('t')!.children.get(name)!.ruleSet!;
  for (const name of ['o', 'f', 'uses_f', 'uses_every', 'uses_data', 'with_input'])
    assert.equal(generatedRuleSet(at(name), p2), null, name);
  assert.ok(generatedRuleSet(at('allow'), p2));
  const value = (q: string, input: unknown = {}, data: unknown = {}) => {
    const x = p.eval(`x := ${q}`, { input, data })[0]?.get('x');
    return x === undefined ? undefined : toJSON(x);
  };
  assert.deepEqual(value('data.t.o', { xs: ['b', 'a'] }), { a: 1, b: 1 });
  assert.equal(value('data.t.uses_f'), 2);
  assert.equal(value('data.t.uses_every', { xs: [1, 2] }), true);
  assert.equal(value('data.t.uses_data', {}, { base: { x: 1 } }), true);
  assert.equal(value('data.t.with_input'), true);
});

test('with replacing input, data or a builtin turns generated code off where it applies', () => {
  assert.equal(policy.eval('data.t.allow with input as {"user": {"groups": ["admin"]}}').length, 1);
  assert.deepEqual(
    policy
      .eval('x := data.t.header_ok with startswith as true', {
        input: { headers: { 'x-version': '2', 'content-type': 'text/plain' } },
      })[0]
      ?.get('x'),
    true,
  );
  assert.deepEqual(
    policy.eval('x := data.t.allow with data.t.allow as "replaced"', { input: INPUTS[0] })[0]?.get('x'),
    'replaced',
  );
});

test('on the OPA conformance cases, generated code gives the closure evaluator’s results', async () => {
  const casesDir = conformanceCasesDir();
  const outcome = async (p: Policy, query: string, c: ConformanceCase) => {
    try {
      const options = {
        input: c.input ?? undefined,
        data: c.data ?? {},
        strictBuiltinErrors: c.strict_error,
      };
      const solutions = await p.evalAsync(query, options);
      return JSON.stringify(solutions.map((b) => [...b].map(([k, v]) => [k, toJSON(v)])));
    } catch (err) {
      return `error ${(err as { code?: string }).code}`;
    }
  };
  let compared = 0;
  for (const { cases } of loadCaseFiles(casesDir)) {
    for (const c of cases) {
      // Single-expression queries without `with`, so that one `with data…` turns generation off.
      if (/[\n;]| with /.test(c.query) || c.input_term !== undefined) continue;
      let p: Policy;
      try {
        p = compile(Object.fromEntries((c.modules ?? []).map((m, i) => [`m${i}.rego`, m])));
      } catch {
        continue;
      }
      const generated = await outcome(p, c.query, c);
      const closures = await outcome(p, `${c.query} with data.generated_off as true`, c);
      assert.equal(generated, closures, c.note);
      compared++;
    }
  }
  assert.ok(compared > 350, `${compared} cases compared`);
});

test.run();
