import * as assert from 'node:assert/strict';
import {
  compile,
  formatResidual,
  type HostBuiltin,
  type Policy,
  RegoError,
  toJSON,
} from '../../../services/rego/index.ts';
import { test } from '../../support/suite.ts';
import { errorOf } from './helpers.ts';

/** A stand-in for a collection: documents by `_id`, with a log of the lookups made. */
function collection(docs: Record<string, unknown>) {
  const lookups: string[] = [];
  const findOne: HostBuiltin = {
    arity: 2,
    callAsync: async ([name, id]) => {
      lookups.push(`${name}/${id}`);
      await new Promise((resolve) => setImmediate(resolve));
      if (name !== 'users') throw new Error(`no collection ${name}`);
      return docs[id as string];
    },
  };
  return { findOne, lookups };
}

const USERS = { ann: { name: 'ann', role: 'admin' }, bob: { name: 'bob', role: 'dev' } };

function policyWith(rego: string, builtins: Record<string, HostBuiltin>): Policy {
  return compile({ 'host.rego': `package host\n${rego}` }, { builtins });
}

async function xAsync(policy: Policy, input: unknown, strictBuiltinErrors = false): Promise<unknown> {
  const all = await policy.evalAsync('x := data.host.x', { input, strictBuiltinErrors });
  return all.length === 0 ? undefined : toJSON(all[0]!.get('x')!);
}

test('a synchronous host builtin takes and returns JSON, in eval and evalAsync', async () => {
  const seen: unknown[][] = [];
  const policy = policyWith('x := acme.tag(input.user, {"b", "a"})', {
    'acme.tag': {
      arity: 2,
      call: (args) => {
        seen.push(args);
        return { tagged: args[0], count: (args[1] as unknown[]).length };
      },
    },
  });
  const input = { user: 'ann' };
  assert.deepEqual(toJSON(policy.eval('x := data.host.x', { input })[0]!.get('x')!), {
    count: 2,
    tagged: 'ann',
  });
  assert.deepEqual(await xAsync(policy, input), { count: 2, tagged: 'ann' });
  // Sets arrive as sorted arrays.
  assert.deepEqual(seen[0], ['ann', ['a', 'b']]);
});

test('a host builtin returning undefined makes the call undefined', async () => {
  const policy = policyWith('x := acme.nothing(1)\ndefault y := "none"\ny := acme.nothing(1)', {
    'acme.nothing': { arity: 1, call: () => undefined },
  });
  assert.deepEqual(policy.eval('x := data.host.x'), []);
  assert.equal(toJSON(policy.eval('y := data.host.y')[0]!.get('y')!), 'none');
});

test('a host builtin that throws is undefined, or an eval_builtin_error with strict builtin errors', async () => {
  const policy = policyWith('x := acme.fail(input.v)', {
    'acme.fail': {
      arity: 1,
      call: ([v]) => {
        throw new Error(`bad value ${v}`);
      },
    },
  });
  assert.deepEqual(policy.eval('x := data.host.x', { input: { v: 3 } }), []);
  const err = errorOf(() => policy.eval('x := data.host.x', { input: { v: 3 }, strictBuiltinErrors: true }));
  assert.equal(err.code, 'eval_builtin_error');
  assert.match(err.message, /acme\.fail: bad value 3/);
});

test('an asynchronous builtin runs in evalAsync; eval names it and says to use evalAsync', async () => {
  const { findOne, lookups } = collection(USERS);
  const policy = policyWith('x := rond.find_one("users", input.user).role', { 'rond.find_one': findOne });
  assert.equal(await xAsync(policy, { user: 'ann' }), 'admin');
  assert.equal(await xAsync(policy, { user: 'nobody' }), undefined);
  assert.deepEqual(lookups, ['users/ann', 'users/nobody']);
  const err = errorOf(() => policy.eval('x := data.host.x', { input: { user: 'ann' } }));
  assert.equal(err.code, 'eval_builtin_error');
  assert.match(err.message, /rond\.find_one is an asynchronous builtin: evaluate with evalAsync/);
});

test('a rejected asynchronous call is undefined, or an eval_builtin_error with strict builtin errors', async () => {
  const { findOne } = collection(USERS);
  const policy = policyWith('default x := "denied"\nx := rond.find_one("orders", input.user).role', {
    'rond.find_one': findOne,
  });
  assert.equal(await xAsync(policy, { user: 'ann' }), 'denied');
  await assert.rejects(xAsync(policy, { user: 'ann' }, true), (err: unknown) => {
    assert.ok(err instanceof RegoError);
    assert.equal(err.code, 'eval_builtin_error');
    assert.match(err.message, /rond\.find_one: no collection orders/);
    return true;
  });
});

test('calls over a comprehension run together, each once, and dependent calls in later rounds', async () => {
  const { findOne, lookups } = collection({
    ...USERS,
    team: { members: ['ann', 'bob', 'ann'] },
  });
  const policy = policyWith(
    'x := [role | some id in rond.find_one("users", "team").members; role := rond.find_one("users", id).role]',
    { 'rond.find_one': findOne },
  );
  assert.deepEqual(await xAsync(policy, {}), ['admin', 'dev', 'admin']);
  // The team first, then both members at once; ann's repeated lookup is reused.
  assert.deepEqual(lookups, ['users/team', 'users/ann', 'users/bob']);
});

test('dependent calls take one round each, up to a bound with a clear error', async () => {
  const inc: HostBuiltin = { arity: 1, callAsync: async ([n]) => (n as number) + 1 };
  const nested = (depth: number) =>
    compile(
      { 'deep.rego': `package deep\nx := ${'acme.inc('.repeat(depth)}0${')'.repeat(depth)}` },
      { builtins: { 'acme.inc': inc } },
    );
  assert.equal((await nested(31).evalAsync('x := data.deep.x'))[0]!.get('x'), 31);
  await assert.rejects(nested(40).evalAsync('x := data.deep.x'), (err: unknown) => {
    assert.ok(err instanceof RegoError);
    assert.equal(err.code, 'eval_builtin_error');
    assert.match(err.message, /still pending after 32 rounds .*: acme\.inc$/);
    return true;
  });
});

test('partial evaluation runs an asynchronous builtin with known arguments', async () => {
  const { findOne } = collection(USERS);
  const policy = policyWith(
    'rows if {\n  user := rond.find_one("users", input.user)\n  data.resources[_].owner == user.name\n}',
    { 'rond.find_one': findOne },
  );
  const residual = await policy.partialAsync('data.host.rows', { input: { user: 'bob' } });
  assert.deepEqual(formatResidual(residual), [['equal(data.resources[_].owner, "bob")']]);
  assert.throws(
    () => policy.partial('data.host.rows', { input: { user: 'bob' } }),
    /evalAsync or partialAsync/,
  );
  const evaluated = await policy.evalExpressionsAsync('rond.find_one("users", "ann").role');
  assert.equal(evaluated[0]!.expressions[0]!.value, 'admin');
});

test('host builtins are checked: wrong arity, unknown names, bad definitions', () => {
  const lookup: HostBuiltin = { arity: 2, call: () => null };
  const arity = errorOf(() => policyWith('x := acme.lookup(1)', { 'acme.lookup': lookup }));
  assert.equal(arity.code, 'rego_type_error');
  assert.match(arity.message, /acme\.lookup/);
  const unknown = errorOf(() => policyWith('x := acme.other(1, 2)', { 'acme.lookup': lookup }));
  assert.equal(unknown.code, 'rego_type_error');
  assert.match(unknown.message, /acme\.other/);
  const cases: [string, HostBuiltin, RegExp][] = [
    ['count', lookup, /"count": the name is a standard builtin/],
    ['data.x', lookup, /"data\.x": the name must be identifiers joined by dots/],
    ['acme..x', lookup, /must be identifiers joined by dots/],
    ['acme.neg', { arity: -1, call: () => 1 }, /arity must be a non-negative integer, got -1/],
    ['acme.both', { arity: 1, call: () => 1, callAsync: async () => 1 }, /exactly one of call and callAsync/],
    ['acme.none', { arity: 1 }, /exactly one of call and callAsync/],
  ];
  for (const [name, builtin, message] of cases) {
    const err = errorOf(() => policyWith('x := 1', { [name]: builtin }));
    assert.equal(err.code, 'rego_compile_error');
    assert.match(err.message, message);
  }
});

test('with replaces a host builtin like a standard one', async () => {
  const { findOne, lookups } = collection(USERS);
  const policy = policyWith('x := rond.find_one("users", "ann").role', { 'rond.find_one': findOne });
  const all = await policy.evalAsync('y := data.host.x with rond.find_one as {"role": "mocked"}');
  assert.equal(all[0]!.get('y'), 'mocked');
  assert.deepEqual(lookups, []);
});

test.run();
