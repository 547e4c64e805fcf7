import type { JsonObject, JsonValue } from '../../operators/record/json.ts';
import { or, type Query } from './mongo/query.ts';
import { equalityKey, isJsonObject } from './mongo/values.ts';

/**
 * One query for many: the `$or` of the parts, deduplicated; when every part is a membership
 * test of one path (`{P: {$eq: x}}` or `{P: {$in: [...]}}`), a single `{P: {$in: [...]}}`
 * that an index answers in one scan.
 */
export function mergeQueries(parts: readonly Query[]): Query {
  const merged = or(parts);
  if (typeof merged === 'boolean' || !('$or' in merged)) return merged;
  const clauses = merged.$or as JsonObject[];
  const first = membership(clauses[0]!);
  if (!first) return merged;
  const values = new Map<string, JsonValue>();
  for (const clause of clauses) {
    const m = membership(clause);
    if (!m || m.path !== first.path) return merged;
    for (const v of m.values) values.set(equalityKey(v), v);
  }
  return { [first.path]: { $in: [...values.values()] } };
}

function membership(clause: JsonObject): { path: string; values: readonly JsonValue[] } | null {
  const keys = Object.keys(clause);
  if (keys.length !== 1 || keys[0]!.startsWith('$')) return null;
  const operand = clause[keys[0]!];
  if (!isJsonObject(operand)) return null;
  const ops = Object.keys(operand);
  if (ops.length !== 1) return null;
  if (ops[0] === '$eq') return { path: keys[0]!, values: [operand.$eq as JsonValue] };
  if (ops[0] === '$in' && Array.isArray(operand.$in)) return { path: keys[0]!, values: operand.$in };
  return null;
}
