import * as assert from 'uvu/assert';
import { parseConfig } from '../../../engine/config/index.ts';
import { COMPARISON_OPERATORS } from '../../../engine/filter/ast.ts';
import { test } from '../../support/suite.ts';
import { edited, issuesOf } from './fixtures.ts';

const FILTER_PATH = 'processor.graph.edges[0].filter';

function withFilter(filter: unknown) {
  return edited((c) => (c.processor.graph.edges[0].filter = filter));
}

function acceptedFilter(filter: unknown): unknown {
  return parseConfig(JSON.stringify(withFilter(filter))).config.processor.graph.edges[0]!.filter;
}

test('every comparison operator is accepted with a local or constant right side', () => {
  for (const op of COMPARISON_OPERATORS) {
    const local = { [op]: [{ foreign: ['a', 0] }, { local: ['b'] }] };
    assert.equal(acceptedFilter(local), local);
    const constant = { [op]: [{ foreign: ['a'] }, ['x', 'y']] };
    assert.equal(acceptedFilter(constant), constant);
  }
});

test('FilterValue forms are accepted', () => {
  for (const value of ['s', 42, -1.5, true, null, ['a'], [1, 2.5], [true, false], []]) {
    assert.equal(acceptedFilter({ $eq: [{ foreign: ['a'] }, value] }), { $eq: [{ foreign: ['a'] }, value] });
  }
});

test('logical, $isArray, $regexMatch and boolean forms are accepted', () => {
  const filter = {
    $and: [
      { $or: [true, false] },
      { $not: { $isArray: { foreign: ['tags'] } } },
      { $regexMatch: { input: { foreign: ['name'] }, regex: '^a', options: null } },
      { $regexMatch: { input: { foreign: ['name'] }, regex: '^a' } },
      { $and: [] },
    ],
  };
  assert.equal(acceptedFilter(filter), filter);
  assert.is(acceptedFilter(false), false);
});

const FAILING: Array<[string, unknown, string, RegExp]> = [
  ['an unknown operator', { $equals: [{ foreign: ['a'] }, 1] }, FILTER_PATH, /exactly one of the keys \$and/],
  [
    'two operator keys',
    { $eq: [{ foreign: ['a'] }, 1], $ne: [{ foreign: ['a'] }, 2] },
    FILTER_PATH,
    /exactly one of the keys/,
  ],
  ['an empty object', {}, FILTER_PATH, /exactly one of the keys/],
  ['a string', 'true', FILTER_PATH, /true, false or an object/],
  ['one item', { $eq: [{ foreign: ['a'] }] }, `${FILTER_PATH}.$eq`, /at least 2 items/],
  ['three items', { $eq: [{ foreign: ['a'] }, 1, 2] }, `${FILTER_PATH}.$eq`, /at most 2 items/],
  [
    'local first',
    { $eq: [{ local: ['a'] }, { foreign: ['b'] }] },
    `${FILTER_PATH}.$eq[0].foreign`,
    /is required/,
  ],
  ['a negative segment', { $eq: [{ foreign: ['a', -1] }, 1] }, `${FILTER_PATH}.$eq[0].foreign[1]`, />= 0/],
  [
    'a fractional segment',
    { $eq: [{ foreign: ['a'] }, { local: [1.5] }] },
    `${FILTER_PATH}.$eq[1].local[0]`,
    /field name \(string\) or an array index/,
  ],
  [
    'a mixed array value',
    { $in: [{ foreign: ['a'] }, [1, 'x']] },
    `${FILTER_PATH}.$in[1]`,
    /only strings, only numbers/,
  ],
  ['an object value', { $eq: [{ foreign: ['a'] }, { x: 1 }] }, `${FILTER_PATH}.$eq[1]`, /"local"/],
  [
    'an extra key next to local',
    { $eq: [{ foreign: ['a'] }, { local: ['b'], x: 1 }] },
    `${FILTER_PATH}.$eq[1].x`,
    /unknown property/,
  ],
  [
    '$and not an array',
    { $and: { $eq: [{ foreign: ['a'] }, 1] } },
    `${FILTER_PATH}.$and`,
    /must be an array/,
  ],
  [
    'a bad nested filter',
    { $or: [true, { $not: { $gt: 5 } }] },
    `${FILTER_PATH}.$or[1].$not.$gt`,
    /must be an array/,
  ],
  [
    '$isArray with local',
    { $isArray: { local: ['a'] } },
    `${FILTER_PATH}.$isArray.local`,
    /unknown property/,
  ],
  [
    '$regexMatch without regex',
    { $regexMatch: { input: { foreign: ['a'] } } },
    `${FILTER_PATH}.$regexMatch.regex`,
    /is required/,
  ],
  [
    '$regexMatch with numeric options',
    { $regexMatch: { input: { foreign: ['a'] }, regex: 'x', options: 1 } },
    `${FILTER_PATH}.$regexMatch.options`,
    /must be a string/,
  ],
];

for (const [name, filter, path, rule] of FAILING) {
  test(`rejects a filter with ${name}`, () => {
    const issues = issuesOf(withFilter(filter));
    const issue = issues.find((candidate) => candidate.path === path);
    assert.ok(issue, `no issue at ${path}: ${JSON.stringify(issues)}`);
    assert.match(issue!.rule, rule);
  });
}

test('a deeply nested filter is accepted', () => {
  let filter: unknown = { $eq: [{ foreign: ['a'] }, 1] };
  for (let depth = 0; depth < 200; depth++) filter = { $not: filter };
  assert.equal(acceptedFilter(filter), filter);
});

test.run();
