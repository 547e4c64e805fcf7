import type { JsonObject, JsonValue } from '../../../operators/record/json.ts';
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
} from './operators.ts';
import { equalityKey, isJsonObject } from './values.ts';

/** A MongoDB query document, or a constant: `true` matches every document, `false` none. */
export type Query = JsonObject | boolean;

export function and(parts: readonly Query[]): Query {
  const kept: JsonObject[] = [];
  for (const p of parts) {
    if (p === false) return false;
    if (p !== true) kept.push(p);
  }
  if (kept.length === 0) return true;
  return kept.length === 1 ? kept[0]! : { $and: kept };
}

export function or(parts: readonly Query[]): Query {
  const kept = new Map<string, JsonObject>();
  for (const p of parts) {
    if (p === true) return true;
    if (p !== false) kept.set(equalityKey(p), p);
  }
  if (kept.size === 0) return false;
  const list = [...kept.values()];
  return list.length === 1 ? list[0]! : { $or: list };
}

export function not(part: Query): Query {
  return typeof part === 'boolean' ? !part : { $nor: [part] };
}

/** The document MongoDB is sent: `true` becomes `{}` (a `false` query is never sent). */
export function toMongoFilter(query: JsonObject | true): JsonObject {
  return query === true ? {} : query;
}

/**
 * Compiles a query document (the subset `engine/filter` emits) into a predicate over documents,
 * with MongoDB's semantics. Compiled once per query, then applied to many documents.
 */
export function compileQuery(query: Query): (doc: JsonObject) => boolean {
  if (typeof query === 'boolean') return () => query;
  const clauses = Object.entries(query).map(([key, arg]) => compileClause(key, arg));
  return (doc) => clauses.every((clause) => clause(doc));
}

function compileClause(key: string, arg: JsonValue): (doc: JsonObject) => boolean {
  if (key === '$and' || key === '$or' || key === '$nor') {
    const parts = asArray(arg, key).map((q) => compileQuery(asObject(q, key)));
    if (key === '$and') return (doc) => parts.every((p) => p(doc));
    if (key === '$or') return (doc) => parts.some((p) => p(doc));
    return (doc) => !parts.some((p) => p(doc));
  }
  if (key.startsWith('$')) throw new Error(`unsupported query operator ${key}`);
  return compileOperators(key.split('.'), asObject(arg, key));
}

type FieldTest = (doc: JsonObject) => boolean;

function compileOperators(path: string[], operators: JsonObject): FieldTest {
  const tests: FieldTest[] = [];
  for (const [op, arg] of Object.entries(operators)) {
    if (op === '$options') continue;
    tests.push(compileOperator(path, op, arg, operators));
  }
  return (doc) => tests.every((t) => t(doc));
}

function compileOperator(path: string[], op: string, arg: JsonValue, operators: JsonObject): FieldTest {
  switch (op) {
    case '$eq':
      return (d) => matchesEq(d, path, arg);
    case '$ne':
      return (d) => !matchesEq(d, path, arg);
    case '$gt':
    case '$gte':
    case '$lt':
    case '$lte':
      return (d) => matchesRange(d, path, op as RangeOperator, arg);
    case '$in': {
      const list = asArray(arg, op);
      return (d) => matchesIn(d, path, list);
    }
    case '$nin': {
      const list = asArray(arg, op);
      return (d) => !matchesIn(d, path, list);
    }
    case '$elemMatch': {
      const inner = asObject(arg, op);
      if (Object.keys(inner).length !== 1 || !('$eq' in inner))
        throw new Error('only {$elemMatch: {$eq}} is supported');
      const r = inner.$eq as JsonValue;
      return (d) => matchesElemMatchEq(d, path, r);
    }
    case '$size': {
      const n = arg as number;
      return (d) => matchesSize(d, path, n);
    }
    case '$type':
      if (arg !== 'array') throw new Error('only {$type: "array"} is supported');
      return (d) => matchesTypeArray(d, path);
    case '$exists':
      return arg ? (d) => matchesExists(d, path) : (d) => !matchesExists(d, path);
    case '$regex': {
      const regex = compileRegex(String(arg), (operators.$options as string | undefined) ?? null);
      return (d) => matchesRegex(d, path, regex);
    }
    case '$not': {
      const inner = compileOperators(path, asObject(arg, op));
      return (d) => !inner(d);
    }
    default:
      throw new Error(`unsupported query operator ${op}`);
  }
}

function asArray(value: JsonValue, where: string): JsonValue[] {
  if (!Array.isArray(value)) throw new Error(`${where} needs an array`);
  return value;
}

function asObject(value: JsonValue, where: string): JsonObject {
  if (!isJsonObject(value)) throw new Error(`${where} needs an object`);
  return value;
}
