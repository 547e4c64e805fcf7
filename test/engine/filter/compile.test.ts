import * as assert from 'uvu/assert';
import type { GenericFilter } from '../../../engine/filter/ast.ts';
import { buildStoreEdges, compileFilter, compileQuery } from '../../../engine/filter/index.ts';
import { test } from '../../support/suite.ts';

const eq = (foreign: (string | number)[], right: unknown) =>
  ({ $eq: [{ foreign }, right] }) as unknown as GenericFilter;
const op = (name: string, right: unknown, foreign: (string | number)[] = ['f']) =>
  ({ [name]: [{ foreign }, right] }) as unknown as GenericFilter;

test('downward query of an equality reads the local value of the parent', () => {
  const f = compileFilter(eq(['customerId'], { local: ['id'] }));
  assert.equal(f.downward({ id: 5 }), { 'value.customerId': { $eq: 5 } });
  assert.equal(f.downward({}), { 'value.customerId': { $eq: null } }, 'missing local is null');
  assert.equal(f.downward({ id: { a: [1] } }), { 'value.customerId': { $eq: { a: [1] } } });
});

test('downward forms follow engine.md §3 (r op F becomes F inverse-op r)', () => {
  const l = { local: ['l'] };
  const p = { l: 3 };
  assert.equal(compileFilter(op('$gt', l)).downward(p), { 'value.f': { $lt: 3 } });
  assert.equal(compileFilter(op('$gte', l)).downward(p), { 'value.f': { $lte: 3 } });
  assert.equal(compileFilter(op('$lt', l)).downward(p), { 'value.f': { $gt: 3 } });
  assert.equal(compileFilter(op('$lte', l)).downward(p), { 'value.f': { $gte: 3 } });
  assert.equal(compileFilter(op('$in', l)).downward(p), { 'value.f': { $elemMatch: { $eq: 3 } } });
  assert.equal(compileFilter(op('$nin', l)).downward(p), { 'value.f': { $not: { $elemMatch: { $eq: 3 } } } });
  assert.equal(compileFilter(op('$contains', l)).downward({ l: [1, 2] }), { 'value.f': { $in: [1, 2] } });
  assert.equal(compileFilter(op('$contains', l)).downward(p), false, 'a non-array r links nothing');
  assert.equal(compileFilter(op('$ncontains', l)).downward(p), false);
  assert.equal(compileFilter(op('$sizeEq', l)).downward({ l: [7, 8] }), { 'value.f': { $size: 2 } });
  assert.equal(compileFilter(op('$sizeEq', l)).downward({ l: 2.5 }), false, 'not an integer');
  assert.equal(compileFilter(op('$sizeEq', l)).downward({ l: -1 }), false, 'negative');
  assert.equal(compileFilter(op('$sizeGt', l)).downward({ l: 0 }), false);
  assert.equal(compileFilter(op('$sizeGt', l)).downward(p), {
    $and: [{ 'value.f': { $type: 'array' } }, { 'value.f.2': { $exists: false } }],
  });
  assert.equal(compileFilter(op('$sizeLte', l)).downward({ l: 0 }), { 'value.f': { $type: 'array' } });
  assert.equal(compileFilter(op('$sizeLt', l)).downward(p), {
    $and: [{ 'value.f': { $type: 'array' } }, { 'value.f.3': { $exists: true } }],
  });
});

test('null operands of ranges: $gte/$lte null is $eq null, $gt/$lt null links nothing', () => {
  assert.equal(compileFilter(op('$gte', null)).downward({}), { 'value.f': { $eq: null } });
  assert.equal(compileFilter(op('$gt', null)).downward({}), false);
});

test('$isArray, $regexMatch, $not, $and, $or and constants', () => {
  assert.equal(compileFilter({ $isArray: { foreign: ['a', 0] } }).downward({}), {
    'value.a.0': { $type: 'array' },
  });
  assert.equal(
    compileFilter({ $regexMatch: { input: { foreign: ['s'] }, regex: '^a', options: 'i' } }).downward({}),
    {
      'value.s': { $regex: '^a', $options: 'i' },
    },
  );
  assert.equal(
    compileFilter({ $regexMatch: { input: { foreign: ['s'] }, regex: '^a', options: null } }).downward({}),
    {
      'value.s': { $regex: '^a' },
    },
  );
  assert.equal(compileFilter({ $not: eq(['f'], 1) }).downward({}), { $nor: [{ 'value.f': { $eq: 1 } }] });
  assert.equal(compileFilter({ $and: [eq(['f'], 1), false] }).downward({}), false);
  assert.equal(compileFilter({ $or: [eq(['f'], 1), true] }).downward({}), true);
  assert.equal(compileFilter({ $not: false }).downward({}), true);
  assert.equal(compileFilter({ $and: [] }).downward({}), true);
  assert.equal(compileFilter({ $or: [] }).downward({}), false);
});

test('links follows MongoDB semantics: arrays, null/missing, brackets, field order', () => {
  const f = compileFilter(eq(['f'], { local: ['l'] }));
  assert.ok(f.links({ l: 5 }, { f: [4, 5] }), 'array traversal');
  assert.ok(f.links({ l: 5 }, { f: 5.0 }), 'int equals double');
  assert.not.ok(f.links({ l: 5 }, { f: '5' }), 'number is not a numeric string');
  assert.ok(f.links({}, {}), 'missing local (null) matches missing foreign');
  assert.ok(f.links({ l: null }, { f: null }));
  assert.not.ok(f.links({ l: null }, { f: 0 }));
  assert.not.ok(f.links({ l: { a: 1, b: 2 } }, { f: { b: 2, a: 1 } }), 'field order counts');
  const gt = compileFilter(op('$gt', { local: ['l'] }));
  assert.ok(gt.links({ l: 5 }, { f: 4 }));
  assert.not.ok(gt.links({ l: 5 }, { f: '4' }), 'a string never orders against a number');
  assert.ok(gt.links({ l: 'b' }, { f: 'a' }));
  const nested = compileFilter(eq(['a', 'b'], { local: ['l'] }));
  assert.ok(nested.links({ l: 2 }, { a: [{ b: 1 }, { b: 2 }] }), 'array of documents');
  assert.ok(nested.links({}, { a: [{ c: 1 }] }), 'element without the field is missing');
  assert.not.ok(nested.links({}, { a: [1, 2] }), 'scalars in the array are not missing values');
});

test('fields named like Object.prototype members are ordinary fields: missing when absent', () => {
  for (const name of ['constructor', 'toString', 'hasOwnProperty', '__proto__']) {
    const f = compileFilter(eq([name], { local: ['parentRef'] }));
    assert.ok(f.links({}, {}), `${name}: missing on both sides is null = null`);
    assert.not.ok(f.links({ parentRef: 1 }, {}), `${name}: a missing child field is null, not 1`);
    assert.ok(f.links({ parentRef: 1 }, JSON.parse(`{"${name}": 1}`)), `${name}: present, it links`);
    assert.equal(f.downward({}), { [`value.${name}`]: { $eq: null } }, `${name}: missing local`);
    const local = compileFilter(eq(['ref'], { local: [name] }));
    assert.equal(local.downward({}), { 'value.ref': { $eq: null } }, `${name}: missing local is null`);
    assert.equal(local.downward({ [name]: 2 }), { 'value.ref': { $eq: 2 } });
    assert.not.ok(compileFilter({ $isArray: { foreign: [name] } }).links({}, {}), `${name}: $isArray`);
    assert.equal(
      f.equalities[0]?.childKeys({}),
      compileFilter(eq(['x'], { local: ['parentRef'] })).equalities[0]?.childKeys({}),
    );
    // Nested: through an array of documents, and a local path below an object.
    const nested = compileFilter(eq(['items', name], { local: ['a', name] }));
    assert.ok(nested.links({ a: {} }, { items: [{}] }), `${name}: missing in an element and locally`);
    assert.not.ok(nested.links({ a: { [name]: 1 } }, { items: [{}] }), `${name}: missing in the element`);
    assert.equal(nested.downward({ a: {} }), { [`value.items.${name}`]: { $eq: null } });
  }
});

test('upward queries are built from the child and fold child-only parts', () => {
  const f = compileFilter(eq(['customerId'], { local: ['id'] }));
  assert.equal(f.upward({ customerId: 5 }), { 'value.id': { $in: [5] } });
  assert.equal(f.upward({ customerId: [5, 6] }), { 'value.id': { $in: [[5, 6], 5, 6] } });
  const withConstant = compileFilter({ $and: [eq(['customerId'], { local: ['id'] }), eq(['kind'], 'vip')] });
  assert.equal(withConstant.upward({ customerId: 1, kind: 'vip' }), { 'value.id': { $in: [1] } });
  assert.equal(withConstant.upward({ customerId: 1, kind: 'other' }), false);
  assert.equal(compileFilter({ $isArray: { foreign: ['x'] } }).upward({ x: [] }), true);
  assert.equal(compileFilter(true).upward({}), true);
});

test('batched queries: one $in for an equality edge, a deduplicated $or otherwise', () => {
  const f = compileFilter(eq(['customerId'], { local: ['id'] }));
  assert.equal(f.downwardBatch([{ id: 1 }, { id: 2 }, { id: 1 }]), { 'value.customerId': { $in: [1, 2] } });
  assert.equal(f.upwardBatch([{ customerId: 1 }, { customerId: 3 }]), { 'value.id': { $in: [1, 3] } });
  const g = compileFilter(op('$gt', { local: ['l'] }));
  assert.equal(g.downwardBatch([{ l: 1 }, { l: 2 }, { l: 1 }]), {
    $or: [{ 'value.f': { $lt: 1 } }, { 'value.f': { $lt: 2 } }],
  });
  const c = compileFilter(op('$contains', { local: ['l'] }));
  assert.equal(c.downwardBatch([{ l: 1 }, { l: 'x' }]), false, 'every parent links nothing');
  assert.equal(f.downwardBatch([]), false);
});

test('index paths and equality pairs', () => {
  const f = compileFilter({ $and: [eq(['a', 0], { local: ['b'] }), op('$gt', { local: ['c'] }, ['d'])] });
  assert.equal(f.childIndexPaths, ['value.a.0', 'value.d']);
  assert.equal(f.parentIndexPaths, ['value.b', 'value.c']);
  assert.equal(
    f.equalities.map((e) => [e.childPath, e.parentPath]),
    [['value.a.0', 'value.b']],
  );
  const pair = f.equalities[0]!;
  assert.equal(pair.parentKeys({ b: 5 }), ['5']);
  assert.equal(pair.childKeys({ a: [5] }), ['5']);
  assert.equal(
    compileFilter({ $or: [eq(['a'], { local: ['b'] }), false] }).equalities,
    [],
    'no equality under $or',
  );
  assert.equal(compileFilter(eq(['a'], 5)).equalities, [], 'a constant is no join');
});

test('paths MongoDB cannot address and bad regexes are rejected with the reason', () => {
  assert.throws(() => compileFilter(eq(['a.b'], 1)), /segment "a\.b" cannot be queried/);
  assert.throws(() => compileFilter(eq(['$x'], 1)), /cannot be queried/);
  assert.throws(() => compileFilter(eq([], 1)), /empty/);
  assert.throws(
    () => compileFilter({ $regexMatch: { input: { foreign: ['s'] }, regex: '(', options: null } }),
    /invalid regex/,
  );
  assert.throws(
    () => compileFilter({ $regexMatch: { input: { foreign: ['s'] }, regex: 'a', options: 'q' } }),
    /unsupported regex option "q"/,
  );
  assert.throws(
    () => buildStoreEdges([{ id: 'orders', parent: 'p', child: 'c', filter: eq(['a.b'], 1) }]),
    /edge "orders": filter path/,
  );
});

test('regex options: x strips whitespace and comments, s lets . match newlines', () => {
  const x = compileQuery({ 'value.s': { $regex: 'a b # comment\n c', $options: 'x' } });
  assert.ok(x({ value: { s: 'abc' } }));
  assert.not.ok(x({ value: { s: 'a b c' } }));
  const s = compileQuery({ 'value.s': { $regex: 'a.b', $options: 's' } });
  assert.ok(s({ value: { s: 'a\nb' } }));
  assert.not.ok(compileQuery({ 'value.s': { $regex: 'a.b' } })({ value: { s: 'a\nb' } }));
  assert.ok(compileQuery({ 'value.s': { $regex: '^B', $options: 'im' } })({ value: { s: 'a\nb' } }));
  assert.ok(compileQuery({ 'value.s': { $regex: 'b' } })({ value: { s: ['a', 'b'] } }), 'array elements');
});

test('BSON ordering of objects and arrays in ranges', () => {
  const lt = (r: unknown) => compileQuery({ 'value.f': { $lt: r } } as never);
  assert.ok(lt({ b: 1 })({ value: { f: { a: 9 } } }), 'field name decides before the value');
  assert.ok(lt([5])({ value: { f: [1, 2, 3] } }), 'arrays compare element by element');
  assert.not.ok(lt(5)({ value: { f: '1' } }));
  assert.not.ok(lt(null)({ value: {} }));
  assert.ok(compileQuery({ 'value.f': { $lte: null } })({ value: {} }));
});

test.run();
