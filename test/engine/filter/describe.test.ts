import * as assert from 'uvu/assert';
import type { GenericFilter } from '../../../engine/filter/ast.ts';
import { describeFilter, formatFieldPath } from '../../../engine/filter/describe.ts';
import { test } from '../../support/suite.ts';

const eq = (foreign: string, local: string): GenericFilter => ({
  $eq: [{ foreign: [foreign] }, { local: [local] }],
});

test('an equality reads local = foreign, down and up', () => {
  assert.equal(describeFilter(eq('customerId', 'id'), 'customers', 'orders'), {
    sentence: 'customers.id = orders.customerId',
    down: 'orders where orders.customerId = <customers.id>',
    up: 'customers where customers.id = <orders.customerId>',
  });
});

test('order comparisons read R op F and flip for the downward reading', () => {
  const gt: GenericFilter = { $gt: [{ foreign: ['price'] }, { local: ['budget'] }] };
  const { sentence, down } = describeFilter(gt, 'p', 'c');
  assert.is(sentence, 'p.budget > c.price');
  assert.is(down, 'c where c.price < <p.budget>');
  assert.is(describeFilter({ $lte: [{ foreign: ['n'] }, 3] }, 'p', 'c').sentence, '3 <= c.n');
});

test('membership, size, constants and integer segments', () => {
  assert.is(
    describeFilter({ $in: [{ foreign: ['ids'] }, { local: ['id'] }] }, 'p', 'c').sentence,
    'p.id in c.ids',
  );
  assert.is(
    describeFilter({ $in: [{ foreign: ['ids'] }, { local: ['id'] }] }, 'p', 'c').down,
    'c where c.ids contains <p.id>',
  );
  assert.is(
    describeFilter({ $ncontains: [{ foreign: ['x'] }, ['a', 'b']] }, 'p', 'c').sentence,
    '["a","b"] does not contain c.x',
  );
  assert.is(
    describeFilter({ $sizeGt: [{ foreign: ['lines'] }, { local: ['slots'] }] }, 'p', 'c').sentence,
    'len(p.slots) > len(c.lines)',
  );
  assert.is(describeFilter({ $sizeEq: [{ foreign: ['lines'] }, 2] }, 'p', 'c').sentence, '2 = len(c.lines)');
  assert.is(formatFieldPath('items', ['lines', 0, 'sku']), 'items.lines[0].sku');
  assert.is(describeFilter({ $eq: [{ foreign: ['a'] }, null] }, 'p', 'c').sentence, 'null = c.a');
});

test('logical operators group with parentheses', () => {
  const filter: GenericFilter = {
    $and: [eq('a', 'x'), { $or: [eq('b', 'y'), { $isArray: { foreign: ['t'] } }] }, { $not: eq('c', 'z') }],
  };
  assert.is(
    describeFilter(filter, 'p', 'c').sentence,
    'p.x = c.a and (p.y = c.b or c.t is an array) and not (p.z = c.c)',
  );
  assert.is(
    describeFilter({ $regexMatch: { input: { foreign: ['name'] }, regex: '^a', options: 'i' } }, 'p', 'c').up,
    'p where <c.name> matches /^a/i',
  );
  assert.is(describeFilter({ $and: [] }, 'p', 'c').sentence, 'true');
});

test('true and false', () => {
  assert.is(describeFilter(true, 'p', 'c').sentence, 'every pair (cartesian product)');
  assert.is(describeFilter(false, 'p', 'c').sentence, 'never');
});

test.run();
