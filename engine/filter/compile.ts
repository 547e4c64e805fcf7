import type { JsonObject } from '../../operators/record/json.ts';
import {
  COMPARISON_OPERATORS,
  type ComparisonOperator,
  type FieldPath,
  type GenericFilter,
  isLocalFilter,
} from './ast.ts';
import { downwardLeaf, isArrayLeaf, regexLeaf } from './downward.ts';
import { type EqualityPair, equalityPair } from './equality.ts';
import { mergeQueries } from './merge.ts';
import { readLocal } from './mongo/path.ts';
import { and, not, or, type Query } from './mongo/query.ts';
import { type Upward, upwardLeaf } from './upward.ts';

/**
 * An edge filter compiled for both directions (engine.md §3). Query documents are over the
 * stored document `{value: ...}`; predicates take record values.
 */
export interface CompiledFilter {
  readonly filter: GenericFilter;
  /** The children of this parent value: `{'value.F': {...}}`, or a constant. */
  downward(parent: JsonObject): Query;
  /** A superset of the parents linked to this child value (confirm with {@link links}). */
  upward(child: JsonObject): Query;
  /** One query for the children of many parents (one `$in` for an equality edge, else `$or`). */
  downwardBatch(parents: readonly JsonObject[]): Query;
  /** One query for the candidate parents of many children. */
  upwardBatch(children: readonly JsonObject[]): Query;
  /** Exact: the downward query of `parent` matches `{value: child}` under MongoDB semantics. */
  links(parent: JsonObject, child: JsonObject): boolean;
  /** `value.F` paths to index on the child collection. */
  readonly childIndexPaths: readonly string[];
  /** `value.L` paths to index on the parent collection. */
  readonly parentIndexPaths: readonly string[];
  /** Equality conditions every link satisfies, usable as hash joins (possibly empty). */
  readonly equalities: readonly EqualityPair[];
  /**
   * The filter is exactly one `$eq` between a foreign and a local path, so sharing an equality
   * key decides the link: a child's keys are the values `{F: {$eq: r}}` matches (from the same
   * path resolution `links` uses, null for missing), and JSON-text equality of JSON values is
   * BSON equality. Stores skip `links` on hash matches of such an edge (the usual foreign key).
   */
  readonly exact: boolean;
}

interface Compiled {
  down(parent: JsonObject): Query;
  links(parent: JsonObject, child: JsonObject): boolean;
  up(child: JsonObject): Upward;
}

interface Collected {
  childPaths: Set<string>;
  parentPaths: Set<string>;
}

export function compileFilter(filter: GenericFilter): CompiledFilter {
  const collected: Collected = { childPaths: new Set(), parentPaths: new Set() };
  const root = compileNode(filter, collected);
  return {
    filter,
    downward: root.down,
    upward: (child) => root.up(child).pos,
    downwardBatch: (parents) => mergeQueries(parents.map(root.down)),
    upwardBatch: (children) => mergeQueries(children.map((c) => root.up(c).pos)),
    links: root.links,
    childIndexPaths: [...collected.childPaths],
    parentIndexPaths: [...collected.parentPaths],
    equalities: requiredEqualities(filter),
    exact: isLocalEquality(filter),
  };
}

function isLocalEquality(filter: GenericFilter): boolean {
  if (typeof filter === 'boolean' || !('$eq' in filter) || Object.keys(filter).length !== 1) return false;
  const [, right] = filter.$eq as readonly [unknown, unknown];
  return isLocalFilter(right as never);
}

function compileNode(filter: GenericFilter, collected: Collected): Compiled {
  if (typeof filter === 'boolean') return constant(filter);
  if ('$and' in filter || '$or' in filter) {
    const isAnd = '$and' in filter;
    const items = (isAnd ? filter.$and : (filter as { $or: GenericFilter[] }).$or).map((f) =>
      compileNode(f, collected),
    );
    const every = isAnd;
    return {
      down: (p) => (every ? and : or)(items.map((i) => i.down(p))),
      links: every ? (p, c) => items.every((i) => i.links(p, c)) : (p, c) => items.some((i) => i.links(p, c)),
      up: (c) => {
        const ups = items.map((i) => i.up(c));
        const pos = ups.map((u) => u.pos);
        const neg = ups.map((u) => u.neg);
        return every ? { pos: and(pos), neg: or(neg) } : { pos: or(pos), neg: and(neg) };
      },
    };
  }
  if ('$not' in filter) {
    const inner = compileNode(filter.$not, collected);
    return {
      down: (p) => not(inner.down(p)),
      links: (p, c) => !inner.links(p, c),
      up: (c) => {
        const u = inner.up(c);
        return { pos: u.neg, neg: u.pos };
      },
    };
  }
  if ('$isArray' in filter || '$regexMatch' in filter) {
    const leaf =
      '$isArray' in filter
        ? isArrayLeaf(childSegments(filter.$isArray.foreign, collected))
        : regexLeaf(
            childSegments(filter.$regexMatch.input.foreign, collected),
            filter.$regexMatch.regex,
            filter.$regexMatch.options,
          );
    return { down: () => leaf.query, links: (_p, c) => leaf.test(c), up: (c) => fold(leaf.test(c)) };
  }
  const op = comparisonOperator(filter);
  const [foreign, right] = (filter as Record<string, readonly [{ foreign: FieldPath }, unknown]>)[op]!;
  const childSegs = childSegments(foreign.foreign, collected);
  const leaf = downwardLeaf(op, childSegs);
  if (isLocalFilter(right as never)) {
    const local = (right as { local: FieldPath }).local;
    const parentSegs = pathSegments(local);
    collected.parentPaths.add(`value.${parentSegs.join('.')}`);
    const up = upwardLeaf(op, childSegs, parentSegs);
    return {
      down: (p) => leaf.query(readLocal(p, parentSegs)),
      links: (p, c) => leaf.test(readLocal(p, parentSegs), c),
      up,
    };
  }
  const r = right as Parameters<typeof leaf.query>[0];
  const query = leaf.query(r);
  return { down: () => query, links: (_p, c) => leaf.test(r, c), up: (c) => fold(leaf.test(r, c)) };
}

function constant(value: boolean): Compiled {
  return { down: () => value, links: () => value, up: () => fold(value) };
}

function fold(value: boolean): Upward {
  return { pos: value, neg: !value };
}

function comparisonOperator(filter: object): ComparisonOperator {
  const keys = Object.keys(filter);
  const op = keys[0] as ComparisonOperator;
  if (keys.length !== 1 || !COMPARISON_OPERATORS.includes(op)) {
    throw new Error(`not a GenericFilter: ${JSON.stringify(filter)}`);
  }
  return op;
}

function childSegments(path: FieldPath, collected: Collected): string[] {
  const segments = pathSegments(path);
  collected.childPaths.add(`value.${segments.join('.')}`);
  return segments;
}

/** FieldPath to MongoDB path segments; rejects what a dotted path cannot address. */
export function pathSegments(path: FieldPath): string[] {
  if (path.length === 0) throw new Error('filter path is empty');
  return path.map((segment) => {
    if (typeof segment === 'number') {
      if (!Number.isInteger(segment) || segment < 0) {
        throw new Error(
          `filter path ${JSON.stringify(path)}: segment ${segment} is not a non-negative integer`,
        );
      }
      return String(segment);
    }
    if (segment === '' || segment.includes('.') || segment.startsWith('$')) {
      throw new Error(
        `filter path ${JSON.stringify(path)}: segment ${JSON.stringify(segment)} cannot be queried in MongoDB (empty, contains "." or starts with "$")`,
      );
    }
    return segment;
  });
}

/** Equality leaves with a local right side that every link must satisfy (top-level `$and`s). */
function requiredEqualities(filter: GenericFilter): EqualityPair[] {
  if (typeof filter === 'boolean') return [];
  if ('$and' in filter) return filter.$and.flatMap(requiredEqualities);
  const op = Object.keys(filter)[0];
  if (op !== '$eq' && op !== '$in' && op !== '$contains') return [];
  const [foreign, right] = (filter as Record<string, readonly [{ foreign: FieldPath }, unknown]>)[op]!;
  if (!isLocalFilter(right as never)) return [];
  return [
    equalityPair(op, pathSegments(foreign.foreign), pathSegments((right as { local: FieldPath }).local)),
  ];
}
