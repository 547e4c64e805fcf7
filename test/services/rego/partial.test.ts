import * as assert from 'node:assert/strict';
import { compile, formatResidual, RowFilterError, toMongoQuery } from '../../../services/rego/index.ts';
import { test } from '../../support/suite.ts';
import { errorOf } from './helpers.ts';

const policy = compile({
  'rows.rego': `package policies

filter_projects if {
  "admin" in input.user.groups
}

filter_projects if {
  project := data.resources[_]
  project.owner == input.user.name
  project.stars >= input.minStars
}

some_in if {
  some r in data.resources
  r.owner == input.user.name
}

by_tag if {
  data.resources[_].tags.kind in ["a", "b"]
}

by_member if {
  input.user.name in data.resources[_].members
}

mirrored if {
  3 < data.resources[_].level
}

every_op if {
  r := data.resources[_]
  r.a == 1
  r.b != 2
  r.c < 3
  r.d <= 4
  r.e > 5
  r.f >= 6
}

any_row if {
  data.resources[_]
}

negated if {
  not data.resources[_].hidden == true
}

two_fields if {
  data.resources[_].a == data.resources[_].b
}
`,
});

function mongo(query: string, input: unknown = {}) {
  return toMongoQuery(policy.partial(query, { input }));
}

test('known parts are evaluated and unknown ones kept: one residual query per alternative', () => {
  const residual = policy.partial('data.policies.filter_projects', {
    input: { user: { name: 'bob', groups: ['dev'] }, minStars: 10 },
  });
  assert.deepEqual(formatResidual(residual), [
    ['equal(data.resources[_].owner, "bob")', 'gte(data.resources[_].stars, 10)'],
  ]);
  assert.deepEqual(toMongoQuery(residual), {
    $or: [{ $and: [{ owner: { $eq: 'bob' } }, { stars: { $gte: 10 } }] }],
  });
});

test('an alternative without conditions lets every row pass: the filter is {}', () => {
  const residual = policy.partial('data.policies.filter_projects', {
    input: { user: { name: 'ann', groups: ['admin'] }, minStars: 1 },
  });
  assert.equal(residual.queries.length, 2);
  assert.deepEqual(toMongoQuery(residual), {});
});

test('every comparison operator has its Mongo operator; a constant on the left mirrors it', () => {
  assert.deepEqual(mongo('data.policies.every_op'), {
    $or: [
      {
        $and: [
          { a: { $eq: 1 } },
          { b: { $ne: 2 } },
          { c: { $lt: 3 } },
          { d: { $lte: 4 } },
          { e: { $gt: 5 } },
          { f: { $gte: 6 } },
        ],
      },
    ],
  });
  assert.deepEqual(mongo('data.policies.mirrored'), { $or: [{ $and: [{ level: { $gt: 3 } }] }] });
});

test('membership is $in: a list for `field in list`, a scalar wrapped for `x in field`, a list as is for `list in field` (Rönd)', () => {
  assert.deepEqual(mongo('data.policies.by_tag'), {
    $or: [{ $and: [{ 'tags.kind': { $in: ['a', 'b'] } }] }],
  });
  assert.deepEqual(mongo('data.policies.by_member', { user: { name: 'bob' } }), {
    $or: [{ $and: [{ members: { $in: ['bob'] } }] }],
  });
  assert.deepEqual(mongo('data.policies.by_member', { user: { name: ['bob', 'eve'] } }), {
    $or: [{ $and: [{ members: { $in: ['bob', 'eve'] } }] }],
  });
});

test('`some r in data.resources` makes r stand for each row', () => {
  const residual = policy.partial('data.policies.some_in', { input: { user: { name: 'bob' } } });
  assert.deepEqual(formatResidual(residual), [['equal(data.resources[_].owner, "bob")']]);
  assert.deepEqual(toMongoQuery(residual), { $or: [{ $and: [{ owner: { $eq: 'bob' } }] }] });
});

test('a bare data.resources[_] is no condition: every row passes, the filter is {}', () => {
  assert.deepEqual(mongo('data.policies.any_row'), {});
});

test('an alternative without conditions does not hide one Mongo cannot express', () => {
  const mixed = compile({
    'm.rego': `package m
rows if not data.resources[_].hidden
rows if input.admin
`,
  });
  assert.throws(() => toMongoQuery(mixed.partial('data.m.rows', { input: { admin: true } })), RowFilterError);
});

test('a query that cannot hold has no residual; Mongo translation refuses it', () => {
  const residual = policy.partial('data.policies.by_member', { input: {} });
  assert.deepEqual(residual.queries, []);
  assert.throws(() => toMongoQuery(residual), RowFilterError);
});

test('negation and field-to-field comparisons are refused with the expression named', () => {
  assert.throws(
    () => mongo('data.policies.negated'),
    (err: Error) =>
      err instanceof RowFilterError && /negation.*data\.resources\[_\]\.hidden/.test(err.message),
  );
  assert.throws(
    () => mongo('data.policies.two_fields'),
    (err: Error) => err instanceof RowFilterError && /one field with a constant/.test(err.message),
  );
});

test('unknowns other than data paths are rejected', () => {
  const err = errorOf(() => policy.partial('data.policies.any_row', { unknowns: ['input.x'] }));
  assert.equal(err.code, 'rego_compile_error');
});

test('function calls over unknowns are inlined, one alternative per definition', () => {
  const functions = compile({
    'f.rego': `package f
owned_by(r, name) if r.owner == name
owned_by(r, name) if name in r.editors
visible(r) if r.public == true
tenant_match(t) if data.resources[_].tenant == t
with_value(r) := r.owner
rows if {
  r := data.resources[_]
  owned_by(r, input.user)
}
public_rows if {
  some r in data.resources
  visible(r)
  r.stars > input.min
}
tenant_rows if tenant_match(input.tenant)
known_only if owned_by({"owner": "bob", "editors": []}, input.user)
hidden_rows if { r := data.resources[_]; not visible(r) }
value_rows if { r := data.resources[_]; with_value(r) }
`,
  });
  const mongoOf = (query: string) =>
    toMongoQuery(functions.partial(query, { input: { user: 'bob', min: 3, tenant: 't1' } }));
  assert.deepEqual(mongoOf('data.f.rows'), {
    $or: [{ $and: [{ owner: { $eq: 'bob' } }] }, { $and: [{ editors: { $in: ['bob'] } }] }],
  });
  assert.deepEqual(mongoOf('data.f.public_rows'), {
    $or: [{ $and: [{ public: { $eq: true } }, { stars: { $gt: 3 } }] }],
  });
  assert.deepEqual(mongoOf('data.f.tenant_rows'), { $or: [{ $and: [{ tenant: { $eq: 't1' } }] }] });
  // A call over known values only is evaluated: no condition is left.
  assert.deepEqual(mongoOf('data.f.known_only'), {});
  const negated = errorOf(() => mongoOf('data.f.hidden_rows'));
  assert.equal(negated.code, 'rego_compile_error');
  assert.match(negated.message, /negation of a function over unknowns/);
  assert.match(errorOf(() => mongoOf('data.f.value_rows')).message, /non-boolean value/);
});

test.run();
