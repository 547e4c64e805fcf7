/**
 * The data document as rules build it: rule values nested at their paths, merged with each
 * other and with base data, and reading values by key.
 */
import type { Rule } from './ast.ts';
import type { RuleSet } from './compiler.ts';
import { RegoError } from './errors.ts';
import { equal, RegoObject, RegoSet, type Value } from './values.ts';

/** Sets `value` at `keys` below `root`; a set leaf collects values; different values conflict. */
export function insertAt(root: RegoObject, keys: Value[], value: Value, setLeaf: boolean, rule: Rule): void {
  let obj = root;
  for (const key of keys.slice(0, -1)) {
    const existing = obj.get(key);
    if (existing !== undefined && !(existing instanceof RegoObject))
      throw conflict('object keys must be unique', rule);
    const next = new RegoObject(existing?.pairs() ?? []);
    obj.set(key, next);
    obj = next;
  }
  const last = keys[keys.length - 1]!;
  const existing = obj.get(last);
  if (setLeaf) {
    if (existing !== undefined && !(existing instanceof RegoSet))
      throw conflict('object keys must be unique', rule);
    const leaf = new RegoSet(existing?.values() ?? []);
    leaf.add(value);
    obj.set(last, leaf);
  } else {
    if (existing !== undefined && !equal(existing, value)) throw conflict('object keys must be unique', rule);
    obj.set(last, markRuleValue(value));
  }
}

/**
 * Objects that are the value of a rule (not objects built from rule paths): another rule may not
 * write inside them.
 */
const ruleValues = new WeakSet<RegoObject>();

function isRuleValue(v: Value): boolean {
  return v instanceof RegoObject && ruleValues.has(v);
}

export function markRuleValue(v: Value): Value {
  if (v instanceof RegoObject) ruleValues.add(v);
  return v;
}

/** Merges a rule's value into a node's object: path objects merge deeply, other values must agree. */
export function mergeInto(out: RegoObject, key: Value, value: Value, rs: RuleSet | undefined): void {
  const existing = out.get(key);
  if (existing === undefined || equal(existing, value)) {
    out.set(key, value);
    return;
  }
  if (isRuleValue(existing) || isRuleValue(value)) {
    throw new RegoError('eval_conflict_error', 'object keys must be unique', rs?.rules[0]?.loc);
  }
  if (existing instanceof RegoSet && value instanceof RegoSet) {
    out.set(key, new RegoSet([...existing.values(), ...value.values()]));
    return;
  }
  if (existing instanceof RegoObject && value instanceof RegoObject) {
    const merged = new RegoObject(existing.pairs());
    for (const [k, v] of value.pairs()) mergeInto(merged, k, v, rs);
    out.set(key, merged);
    return;
  }
  throw new RegoError('eval_conflict_error', 'object keys must be unique', rs?.rules[0]?.loc);
}

export function lookup(v: Value, key: Value): Value | undefined {
  if (Array.isArray(v)) return typeof key === 'number' && Number.isInteger(key) ? v[key] : undefined;
  if (v instanceof RegoObject) return v.get(key);
  if (v instanceof RegoSet) return v.has(key) ? key : undefined;
  return undefined;
}

export function baseAt(data: Value, at: string[]): Value | undefined {
  let v: Value | undefined = data;
  for (const p of at) {
    if (v === undefined) return undefined;
    v = lookup(v, p);
  }
  return v;
}

/** A copy of `doc` with `value` at `path` (objects created along the way). */
export function setPath(doc: Value | undefined, path: string[], value: Value): Value {
  if (path.length === 0) return value;
  const [first, ...rest] = path;
  const base = doc instanceof RegoObject ? doc : new RegoObject();
  const copy = new RegoObject(base.pairs());
  copy.set(first!, setPath(base.get(first!), rest, value));
  return copy;
}

export function isCollection(v: Value): boolean {
  return Array.isArray(v) || v instanceof RegoObject || v instanceof RegoSet;
}

export function conflict(message: string, at: { loc: RegoError['location'] }): RegoError {
  return new RegoError('eval_conflict_error', message, at.loc);
}
