import type { JsonObject, JsonValue } from '../../operators/record/json.ts';
import type { ComparisonOperator } from './ast.ts';
import {
  compileRegex,
  matchesElemMatchEq,
  matchesEq,
  matchesExists,
  matchesIn,
  matchesRange,
  matchesRegex,
  matchesSize,
  matchesTypeArray,
  type RangeOperator,
} from './mongo/operators.ts';
import { and, type Query } from './mongo/query.ts';

/**
 * One downward comparison on the child path F, for a resolved right operand r (engine.md §3
 * table): the query document it stands for, and the same test evaluated directly on a child
 * value (the compiled hot path; the conformance suite proves both agree with MongoDB).
 */
export interface DownwardLeaf {
  query(r: JsonValue): Query;
  test(r: JsonValue, child: JsonObject): boolean;
}

/** The length a `$size…` operand stands for: an array's length or a non-negative integer. */
export function sizeOperand(r: JsonValue): number | null {
  if (Array.isArray(r)) return r.length;
  return typeof r === 'number' && Number.isInteger(r) && r >= 0 ? r : null;
}

const RANGE_FOR = { $gt: '$lt', $gte: '$lte', $lt: '$gt', $lte: '$gte' } as const;

/**
 * No array in a BSON document (16 MB) reaches this length; MongoDB rejects `$size` beyond
 * 32-bit integers, so larger sizes are decided here.
 */
const MAX_ARRAY_LENGTH = 2 ** 24;

/** Only null is in null's type bracket: `$lte`/`$gte: null` are `$eq: null`, `$lt`/`$gt: null` nothing. */
function rangeQuery(f: string, op: RangeOperator, r: JsonValue): Query {
  if (r !== null) return { [f]: { [op]: r } };
  return (op === '$lte' || op === '$gte') && { [f]: { $eq: null } };
}

export function downwardLeaf(op: ComparisonOperator, segments: readonly string[]): DownwardLeaf {
  const f = `value.${segments.join('.')}`;
  const isArrayQuery = { [f]: { $type: 'array' } };
  const exists = (child: JsonObject, n: number) => matchesExists(child, [...segments, String(n)]);
  switch (op) {
    case '$eq':
      return { query: (r) => ({ [f]: { $eq: r } }), test: (r, c) => matchesEq(c, segments, r) };
    case '$ne':
      return { query: (r) => ({ [f]: { $ne: r } }), test: (r, c) => !matchesEq(c, segments, r) };
    case '$gt':
    case '$gte':
    case '$lt':
    case '$lte': {
      const mongoOp = RANGE_FOR[op];
      return {
        query: (r) => rangeQuery(f, mongoOp, r),
        test: (r, c) => matchesRange(c, segments, mongoOp, r),
      };
    }
    case '$in':
      return {
        query: (r) => ({ [f]: { $elemMatch: { $eq: r } } }),
        test: (r, c) => matchesElemMatchEq(c, segments, r),
      };
    case '$nin':
      return {
        query: (r) => ({ [f]: { $not: { $elemMatch: { $eq: r } } } }),
        test: (r, c) => !matchesElemMatchEq(c, segments, r),
      };
    case '$contains':
      return {
        query: (r) => (Array.isArray(r) ? { [f]: { $in: r } } : false),
        test: (r, c) => Array.isArray(r) && matchesIn(c, segments, r),
      };
    case '$ncontains':
      return {
        query: (r) => (Array.isArray(r) ? { [f]: { $nin: r } } : false),
        test: (r, c) => Array.isArray(r) && !matchesIn(c, segments, r),
      };
    case '$sizeEq':
      return sizeLeaf(
        (n) => n < MAX_ARRAY_LENGTH && { [f]: { $size: n } },
        (n, c) => matchesSize(c, segments, n),
      );
    case '$sizeNe':
      return sizeLeaf(
        (n) => (n < MAX_ARRAY_LENGTH ? and([isArrayQuery, { [f]: { $not: { $size: n } } }]) : isArrayQuery),
        (n, c) => matchesTypeArray(c, segments) && !matchesSize(c, segments, n),
      );
    case '$sizeGt':
      return sizeLeaf(
        (n) => n > 0 && and([isArrayQuery, { [`${f}.${n - 1}`]: { $exists: false } }]),
        (n, c) => n > 0 && matchesTypeArray(c, segments) && !exists(c, n - 1),
      );
    case '$sizeGte':
      return sizeLeaf(
        (n) => and([isArrayQuery, { [`${f}.${n}`]: { $exists: false } }]),
        (n, c) => matchesTypeArray(c, segments) && !exists(c, n),
      );
    case '$sizeLt':
      return sizeLeaf(
        (n) => and([isArrayQuery, { [`${f}.${n}`]: { $exists: true } }]),
        (n, c) => matchesTypeArray(c, segments) && exists(c, n),
      );
    case '$sizeLte':
      return sizeLeaf(
        (n) => (n === 0 ? isArrayQuery : and([isArrayQuery, { [`${f}.${n - 1}`]: { $exists: true } }])),
        (n, c) => matchesTypeArray(c, segments) && (n === 0 || exists(c, n - 1)),
      );
  }
}

function sizeLeaf(
  query: (n: number) => Query,
  test: (n: number, child: JsonObject) => boolean,
): DownwardLeaf {
  return {
    query: (r) => {
      const n = sizeOperand(r);
      return n !== null && query(n);
    },
    test: (r, c) => {
      const n = sizeOperand(r);
      return n !== null && test(n, c);
    },
  };
}

export function isArrayLeaf(segments: readonly string[]): { query: Query; test(child: JsonObject): boolean } {
  return {
    query: { [`value.${segments.join('.')}`]: { $type: 'array' } },
    test: (c) => matchesTypeArray(c, segments),
  };
}

export function regexLeaf(
  segments: readonly string[],
  pattern: string,
  options: string | null | undefined,
): { query: Query; test(child: JsonObject): boolean } {
  const regex = compileRegex(pattern, options);
  const operand: JsonObject = options ? { $regex: pattern, $options: options } : { $regex: pattern };
  return {
    query: { [`value.${segments.join('.')}`]: operand },
    test: (c) => matchesRegex(c, segments, regex),
  };
}
