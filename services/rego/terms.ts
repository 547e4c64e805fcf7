/** Static facts about terms: constants, pattern variables, ground paths. */
import type { Term } from './ast.ts';
import type { Env } from './evaluator.ts';
import { RegoObject, RegoSet, type Value } from './values.ts';

const constants = new WeakMap<Term, Value | null>();

/** The value of a literal without variables, refs or calls (computed once per term), else undefined. */
export function constantValue(t: Term): Value | undefined {
  if (t.type === 'scalar') return t.value;
  if (t.type !== 'array' && t.type !== 'set' && t.type !== 'object') return undefined;
  const cached = constants.get(t);
  if (cached !== undefined) return cached ?? undefined;
  let value: Value | undefined;
  if (t.type === 'object') {
    const pairs: [Value, Value][] = [];
    for (const [kt, vt] of t.entries) {
      const key = constantValue(kt);
      const val = key === undefined ? undefined : constantValue(vt);
      if (key === undefined || val === undefined) break;
      pairs.push([key, val]);
    }
    value = pairs.length === t.entries.length ? new RegoObject(pairs) : undefined;
  } else {
    const items: Value[] = [];
    for (const item of t.items) {
      const c = constantValue(item);
      if (c === undefined) break;
      items.push(c);
    }
    if (items.length === t.items.length) value = t.type === 'array' ? items : new RegoSet(items);
  }
  constants.set(t, value === undefined ? null : value);
  return value;
}

export function isRoot(t: Extract<Term, { type: 'var' }>): boolean {
  return t.name === 'input' || t.name === 'data';
}

/**
 * Adds to `into` the variables of a term but `input` and `data`, outside comprehension bodies
 * (those have their own scope).
 */
export function collectVars(t: Term, into: Set<string>): void {
  switch (t.type) {
    case 'var':
      if (!isRoot(t)) into.add(t.name);
      return;
    case 'ref':
      collectVars(t.head, into);
      for (const p of t.path) collectVars(p, into);
      return;
    case 'array':
    case 'set':
      for (const i of t.items) collectVars(i, into);
      return;
    case 'object':
      for (const [k, v] of t.entries) {
        collectVars(k, into);
        collectVars(v, into);
      }
      return;
    case 'call':
      for (const a of t.args) collectVars(a, into);
      return;
    default:
      return;
  }
}

/** Whether a pattern term has variables that unification would bind. */
export function hasUnbound(t: Term, env: Env): boolean {
  if (t.type === 'var') return !isRoot(t) && !env.has(t.name);
  if (t.type === 'array') return t.items.some((i) => hasUnbound(i, env));
  if (t.type === 'object') return t.entries.some(([, v]) => hasUnbound(v, env));
  return false;
}

/** The dotted path of `input.a.b`, `data.x.f` or a function name, if the term is ground. */
export function refPath(t: Term): string[] | undefined {
  if (t.type === 'var') return [t.name];
  if (t.type !== 'ref' || t.head.type !== 'var') return undefined;
  const parts = [t.head.name];
  for (const p of t.path) {
    if (p.type !== 'scalar' || typeof p.value !== 'string') return undefined;
    parts.push(p.value);
  }
  return parts;
}
