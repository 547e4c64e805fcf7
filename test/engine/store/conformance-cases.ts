/**
 * The conformance table: edge filters and the parent/child values they are evaluated on.
 * Every filter runs against every parent and every child (see conformance.test.ts).
 */
import {
  COMPARISON_OPERATORS,
  type ComparisonOperator,
  type GenericFilter,
} from '../../../engine/filter/ast.ts';
import type { JsonObject } from '../../../operators/record/json.ts';

export interface ConformanceCase {
  /** Operator the case is counted under. */
  readonly op: string;
  /** The case is `{$not: <a case of op>}`. */
  readonly negated?: boolean;
  readonly name: string;
  readonly filter: GenericFilter;
  /** Parents the stand-in answers unlike MongoDB for this case, and why. */
  readonly standInParents?: { readonly reason: string; skipParent(parent: JsonObject): boolean };
}

/** A data row; `standIn` says why the jongodb stand-in answers it unlike MongoDB. */
export interface Row {
  readonly value: JsonObject;
  readonly standIn?: string;
}

const NESTED =
  'jongodb matches {F: {$eq: [5]}} only against F itself, not an element [5] of F (MongoDB does)';
const SCALARS = 'jongodb reads "a.b" through an array of scalars as missing (MongoDB: no value)';
const NO_FIELD = 'jongodb does not read "a.b" as missing in an array element lacking b (MongoDB does)';
const POSITIONAL =
  'jongodb reads "g.0" positionally only, not as field "0" of object elements (MongoDB does both)';
const POSITIONAL_LEAF =
  'jongodb looks into an array reached by a positional path ("g.0" = [5, 6]) for $eq/$in; MongoDB does not';
const FIELD_ORDER = 'jongodb finds {x:1,y:2} equal to {y:2,x:1}; MongoDB compares field order';
const ELEMENT_OBJECT =
  'jongodb does not match an object against an object element of an array (MongoDB does)';
const NIN_NULL = 'jongodb: {$nin: [null]} does not exclude a missing field (MongoDB does)';

/** Child values: the foreign side, read at `f`, `a.b`, `g.0`. */
export const CHILDREN: readonly Row[] = [
  { value: {} },
  { value: { f: null } },
  { value: { f: 5 } },
  { value: { f: 5.5 } },
  { value: { f: '5' } },
  { value: { f: 'abc' } },
  { value: { f: 'ABC\nabd' } },
  { value: { f: true } },
  { value: { f: false } },
  { value: { f: 0 } },
  { value: { f: -1 } },
  { value: { f: 2147483648 } },
  { value: { f: 1e300 } },
  { value: { f: [] } },
  { value: { f: [5] } },
  { value: { f: [5, 6] } },
  { value: { f: [1, 2, 3] } },
  { value: { f: [null] } },
  { value: { f: [[5]] }, standIn: NESTED },
  { value: { f: ['a', 'b'] } },
  { value: { f: { x: 1, y: 2 } } },
  { value: { f: { y: 2, x: 1 } }, standIn: FIELD_ORDER },
  { value: { f: [{ x: 1, y: 2 }] }, standIn: ELEMENT_OBJECT },
  { value: { a: { b: 5 } } },
  { value: { a: { b: [5, 7] } } },
  { value: { a: [{ b: 5 }, { b: 6 }] } },
  { value: { a: [{ c: 1 }, { b: 'x' }] }, standIn: NO_FIELD },
  { value: { a: [5, { b: 1 }] } },
  { value: { a: [{ b: [1, 2] }, { b: [3] }] } },
  { value: { a: 5 } },
  { value: { a: [7, 8] }, standIn: SCALARS },
  { value: { a: [[{ b: 5 }]] }, standIn: SCALARS },
  { value: { g: [5, 6] } },
  { value: { g: [[5, 6], 7] }, standIn: POSITIONAL_LEAF },
  { value: { g: { 0: 'zero' } } },
  { value: { g: [] } },
  { value: { g: [{ 0: 'zero' }, 'one'] }, standIn: POSITIONAL },
];

/** Parent values: the local side, read at `l`, `m.n`, `k.0`. */
export const PARENTS: readonly Row[] = [
  { value: {} },
  { value: { l: null } },
  { value: { l: 5 } },
  { value: { l: 5.5 } },
  { value: { l: '5' } },
  { value: { l: 'abc' } },
  { value: { l: 'b' } },
  { value: { l: true } },
  { value: { l: 0 } },
  { value: { l: 1 } },
  { value: { l: 2 } },
  { value: { l: 3 } },
  { value: { l: -1 } },
  { value: { l: 2147483648 } },
  { value: { l: [] } },
  { value: { l: [5] } },
  { value: { l: [5, 6] } },
  { value: { l: [6, 7, 8] } },
  { value: { l: [null] }, standIn: NIN_NULL },
  { value: { l: [[5]] }, standIn: NESTED },
  { value: { l: ['a', 'b'] } },
  { value: { l: { x: 1, y: 2 } } },
  { value: { l: [{ x: 1, y: 2 }] }, standIn: ELEMENT_OBJECT },
  { value: { m: { n: 5 } } },
  { value: { m: { n: [5, 6] } } },
  { value: { m: [{ n: 5 }] } },
  { value: { m: [{ n: 1 }, { k: 2 }] }, standIn: NO_FIELD },
  { value: { m: 5 } },
  { value: { m: ['zero', 'one'] }, standIn: SCALARS },
  { value: { k: ['zero', 'one'] } },
  { value: { k: { 0: 'one' } } },
  { value: { k: [[5, 6]] }, standIn: POSITIONAL_LEAF },
];

/**
 * jongodb compares only scalars in `$gt` … `$lte`; MongoDB orders arrays and objects too (BSON
 * order). Parents whose local value is an array or object are checked on MongoDB only.
 */
const RANGE_STAND_IN = {
  reason: 'jongodb does not order arrays and objects in $gt/$gte/$lt/$lte (MongoDB does, BSON order)',
  skipParent: (parent: JsonObject) =>
    [parent.l, (parent.m as JsonObject | undefined)?.n, (parent.k as unknown[] | undefined)?.[0]].some(
      (v) => typeof v === 'object' && v !== null,
    ),
};

const cmp = (op: ComparisonOperator, foreign: (string | number)[], right: unknown): GenericFilter =>
  ({ [op]: [{ foreign }, right] }) as unknown as GenericFilter;

const CONSTANTS: Record<string, readonly unknown[]> = {
  value: [5, '5', null, true, 5.5, 'abc'],
  array: [[5, 6], ['a'], [], [true, false]],
  size: [0, 1, 2, 2.5, -1, [1, 2]],
};

function comparisonCases(): ConformanceCase[] {
  const cases: ConformanceCase[] = [];
  for (const op of COMPARISON_OPERATORS) {
    const rights: [string, (string | number)[], unknown][] = [
      ['f ~ l', ['f'], { local: ['l'] }],
      ['a.b ~ m.n', ['a', 'b'], { local: ['m', 'n'] }],
      ['g.0 ~ k.0', ['g', 0], { local: ['k', 0] }],
    ];
    const constants = op.startsWith('$size')
      ? CONSTANTS.size!
      : op === '$contains' || op === '$ncontains'
        ? [...CONSTANTS.array!, 5]
        : CONSTANTS.value!;
    for (const c of constants) rights.push([`f ~ ${JSON.stringify(c)}`, ['f'], c]);
    const isRange = op === '$gt' || op === '$gte' || op === '$lt' || op === '$lte';
    for (const [name, foreign, right] of rights) {
      const filter = cmp(op, foreign, right);
      const extra =
        isRange && typeof right === 'object' && right !== null ? { standInParents: RANGE_STAND_IN } : {};
      cases.push({ op, name: `${op} ${name}`, filter, ...extra });
      cases.push({ op, negated: true, name: `$not ${op} ${name}`, filter: { $not: filter }, ...extra });
    }
  }
  return cases;
}

function otherCases(): ConformanceCase[] {
  const eq = cmp('$eq', ['f'], { local: ['l'] });
  const gt = cmp('$gt', ['f'], { local: ['l'] });
  const contains = cmp('$contains', ['a', 'b'], { local: ['l'] });
  const cases: ConformanceCase[] = [
    { op: 'true', name: 'true', filter: true },
    { op: 'false', name: 'false', filter: false },
    { op: '$isArray', name: '$isArray f', filter: { $isArray: { foreign: ['f'] } } },
    { op: '$isArray', name: '$isArray a.b', filter: { $isArray: { foreign: ['a', 'b'] } } },
    { op: '$and', name: '$and eq, gt', filter: { $and: [eq, gt] } },
    { op: '$and', name: '$and eq, $isArray', filter: { $and: [eq, { $isArray: { foreign: ['f'] } }] } },
    { op: '$or', name: '$or eq, contains', filter: { $or: [eq, contains] } },
    { op: '$or', name: '$or eq, false', filter: { $or: [eq, false] } },
    { op: '$not', name: '$not $and eq, gt', filter: { $not: { $and: [eq, gt] } } },
    { op: '$not', name: '$not $or eq, contains', filter: { $not: { $or: [eq, contains] } } },
    { op: '$not', name: '$not $not eq', filter: { $not: { $not: eq } } },
    { op: '$not', name: '$not true', filter: { $not: true } },
    {
      op: '$and',
      name: '$and compound eq',
      filter: { $and: [eq, cmp('$eq', ['a', 'b'], { local: ['m', 'n'] })] },
    },
  ];
  const regexes: [string, string | null | undefined][] = [
    ['^ab', undefined],
    ['^ab', null],
    ['^ab', 'i'],
    ['c$', 'm'],
    ['abc.abd', 's'],
    ['abc.abd', 'is'],
    ['a b # letters', 'x'],
    ['^[x ]?a', 'x'],
    ['^\\d+$', ''],
  ];
  for (const [regex, options] of regexes) {
    for (const foreign of [['f'], ['a', 'b']]) {
      const filter: GenericFilter = {
        $regexMatch: { input: { foreign }, regex, ...(options === undefined ? {} : { options }) },
      };
      const name = `$regexMatch ${foreign.join('.')} /${regex}/${options ?? ''}`;
      cases.push({ op: '$regexMatch', name, filter });
      cases.push({ op: '$regexMatch', negated: true, name: `$not ${name}`, filter: { $not: filter } });
    }
  }
  return cases;
}

export const CASES: readonly ConformanceCase[] = [...comparisonCases(), ...otherCases()];
