import type { JsonObject, JsonValue } from '../../operators/record/json.ts';
import type { ComparisonOperator } from './ast.ts';
import { type Candidate, MISSING, resolvePath } from './mongo/path.ts';
import { and, not, or, type Query } from './mongo/query.ts';
import { compareBson, equalityKey, isIndexSegment, isJsonObject, typeRank } from './mongo/values.ts';

/**
 * The upward query of one comparison with a `local` right side: given a child value, a query
 * over the parent's `value.<L>` that returns every parent the downward query links to it
 * (engine.md §3), for the comparison (`pos`) and for its negation under `$not` (`neg`).
 *
 * Most forms are built exact for parents whose path L meets no array ("array-free"), where
 * MongoDB reads the same single value as the strict local read; every parent with an array on
 * L is added by {@link arrayClauses}, and the runtime confirms each candidate downward.
 */
export interface Upward {
  readonly pos: Query;
  readonly neg: Query;
}

export function upwardLeaf(
  op: ComparisonOperator,
  childSegments: readonly string[],
  parentSegments: readonly string[],
): (child: JsonObject) => Upward {
  const l = `value.${parentSegments.join('.')}`;
  const arrays = arrayClauses(parentSegments);
  const prefixArrays = arrays.slice(0, -1);
  const exactWithArrays = (exact: Query): Upward => ({
    pos: or([exact, ...arrays]),
    neg: or([not(exact), ...arrays]),
  });
  // `{L: {$in: S}}` finds the strict value wherever it sits; only a missing-through-array parent
  // (read as null) needs the prefix clauses.
  const memberOf = (set: JsonValue[]): Query =>
    set.length === 0 ? false : or([{ [l]: { $in: set } }, ...(set.includes(null) ? prefixArrays : [])]);
  // `$nor` of `$in` rather than `$nin`: the same in MongoDB, and the stand-in gets it right.
  const notMemberOf = (set: JsonValue[]): Query =>
    set.length === 0 ? true : or([not({ [l]: { $in: set } }), ...arrays]);
  const at = (child: JsonObject) => resolvePath(child, childSegments);
  const expandedAt = (child: JsonObject) => resolvePath(child, childSegments, true);

  switch (op) {
    case '$eq':
    case '$ne':
    case '$in':
    case '$nin':
      return (child) => {
        const set = op === '$eq' || op === '$ne' ? equalitySet(expandedAt(child)) : elementSet(at(child));
        const member = memberOf(set);
        const nonMember = notMemberOf(set);
        return op === '$eq' || op === '$in'
          ? { pos: member, neg: nonMember }
          : { pos: nonMember, neg: member };
      };
    case '$contains':
      return (child) => {
        const set = equalitySet(expandedAt(child));
        // MongoDB does not look into an array reached by a positional last segment: take them all.
        const positional = isIndexSegment(parentSegments.at(-1)!) ? [{ [l]: { $type: 'array' } }] : [];
        return { pos: set.length === 0 ? false : or([{ [l]: { $in: set } }, ...positional]), neg: true };
      };
    case '$ncontains':
      return (child) => {
        const scalars = equalitySet(expandedAt(child)).filter((v) => !Array.isArray(v));
        const isArray = { [l]: { $type: 'array' } };
        return {
          pos: scalars.length === 0 ? isArray : and([isArray, { [l]: { $nin: scalars } }]),
          neg: true,
        };
      };
    case '$gt':
    case '$gte':
    case '$lt':
    case '$lte':
      return (child) => exactWithArrays(rangeUpward(op, l, expandedAt(child)));
    default:
      return (child) => {
        const candidates = at(child);
        if (!candidates.some(Array.isArray)) return { pos: false, neg: true };
        return { pos: or([sizeUpward(op, l, candidates, child), ...arrays]), neg: true };
      };
  }
}

/**
 * Values r for which `{F: {$eq: r}}` matches, from the expanded candidates of F
 * (`resolvePath(..., true)`): each value, null for missing.
 */
export function equalitySet(expanded: readonly Candidate[]): JsonValue[] {
  return dedupe(expanded.map((v) => (v === MISSING ? null : v)));
}

/** Values r for which `{F: {$elemMatch: {$eq: r}}}` matches. */
export function elementSet(candidates: readonly Candidate[]): JsonValue[] {
  return dedupe(candidates.flatMap((v) => (Array.isArray(v) ? v : [])));
}

function dedupe(values: readonly JsonValue[]): JsonValue[] {
  return [...new Map(values.map((v) => [equalityKey(v), v])).values()];
}

/** `{P: {$type: "array"}}` for every prefix P of the parent path, the path itself last. */
function arrayClauses(segments: readonly string[]): Query[] {
  return segments.map((_, i) => ({ [`value.${segments.slice(0, i + 1).join('.')}`]: { $type: 'array' } }));
}

// r > F (downward {F: {$lt: r}}) links when r exceeds the least value of its own type bracket;
// `$gte`/`$lte` also link a null/missing r to a null/missing F.
function rangeUpward(op: '$gt' | '$gte' | '$lt' | '$lte', l: string, expanded: readonly Candidate[]): Query {
  const wantsMin = op === '$gt' || op === '$gte';
  const extremes = new Map<number, JsonValue>();
  let hasNull = false;
  for (const v of expanded) {
    if (v === MISSING || v === null) {
      hasNull = true;
      continue;
    }
    const rank = typeRank(v);
    if (rank === 5) continue; // an array r is found by the array clauses
    const best = extremes.get(rank);
    if (best === undefined || (wantsMin ? compareBson(v, best) < 0 : compareBson(v, best) > 0))
      extremes.set(rank, v);
  }
  const parts: Query[] = [...extremes.values()].map((v) => ({ [l]: { [op]: v } }));
  if (hasNull && (op === '$gte' || op === '$lte')) parts.push({ [l]: { $eq: null } });
  return or(parts);
}

function sizeUpward(
  op: ComparisonOperator,
  l: string,
  candidates: readonly Candidate[],
  child: JsonObject,
): Query {
  const sizes = dedupe(candidates.flatMap((v) => (Array.isArray(v) ? [v.length] : []))) as number[];
  switch (op) {
    case '$sizeEq':
      return { [l]: { $in: sizes } };
    case '$sizeNe':
      return { [l]: { $nin: sizes } };
    case '$sizeGt':
      return { [l]: { $gt: Math.max(...sizes) } };
    case '$sizeGte':
      return { [l]: { $gte: Math.max(...sizes) } };
    case '$sizeLt':
      return { [l]: { $lt: indexBound(child) } };
    default:
      return { [l]: { $lte: indexBound(child) } };
  }
}

/**
 * An n such that no path `F.m` with m >= n exists in the value: larger than every array length
 * and every numeric field name in it (`F.m` can reach either).
 */
function indexBound(value: JsonValue): number {
  if (Array.isArray(value)) return value.reduce<number>((n, v) => Math.max(n, indexBound(v)), value.length);
  if (!isJsonObject(value)) return 0;
  let bound = 0;
  for (const [k, v] of Object.entries(value)) {
    bound = Math.max(bound, indexBound(v), isIndexSegment(k) ? Number(k) + 1 : 0);
  }
  return bound;
}
