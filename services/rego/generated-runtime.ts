/**
 * What generated rule code (generated.ts) calls at run time. Generated code reads JSON input in
 * place: its values are "mixed", either Rego values or plain JSON (a JSON object is a plain
 * object, not a RegoObject), converted to Rego values (`toValue`) only where a builtin or a
 * rule's value needs one. These helpers take mixed values and give Rego's answers.
 */
import type { Builtin, BuiltinContext } from './builtins/types.ts';
import { FALLBACK } from './direct.ts';
import { BuiltinError } from './errors.ts';
import { compare, equal, RegoObject, RegoSet, type Value } from './values.ts';

/** A JSON value or a Rego value. */
export type Mixed = unknown;

/** A plain JSON object (not an array, RegoObject or RegoSet). */
function isPlainObject(v: Mixed): v is Record<string, unknown> {
  return (
    typeof v === 'object' &&
    v !== null &&
    !Array.isArray(v) &&
    !(v instanceof RegoObject) &&
    !(v instanceof RegoSet)
  );
}

/** `v[key]` for a string key (a JSON field whose value is undefined reads as null, like fromJSON). */
export function field(v: Mixed, key: string): Mixed {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  if (v instanceof RegoObject) return v.get(key);
  if (v instanceof RegoSet) return v.has(key) ? key : undefined;
  if (!Object.hasOwn(v, key)) return undefined;
  return (v as Record<string, unknown>)[key] ?? null;
}

/** `v[key]` for any key. */
export function get(v: Mixed, key: Mixed): Mixed {
  if (typeof key === 'string') return field(v, key);
  if (Array.isArray(v)) {
    if (typeof key !== 'number' || !Number.isInteger(key) || key < 0 || key >= v.length) return undefined;
    return v[key] ?? null;
  }
  if (v instanceof RegoObject) return v.get(toValue(key));
  if (v instanceof RegoSet) return v.has(toValue(key)) ? key : undefined;
  return undefined;
}

/** The Rego value of a mixed value. */
export function toValue(v: Mixed): Value {
  if (typeof v !== 'object' || v === null) return v === undefined ? null : (v as Value);
  if (v instanceof RegoObject || v instanceof RegoSet) return v;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const e = v[i];
      if (
        e === undefined ||
        (typeof e === 'object' && e !== null && !(e instanceof RegoObject) && !(e instanceof RegoSet))
      )
        return v.map(toValue);
    }
    return v as Value[];
  }
  return RegoObject.lazy(v as Record<string, unknown>);
}

/** Rego equality. */
export function eq(a: Mixed, b: Mixed): boolean {
  if (a === b) return true;
  if (a === null || b === null) return false;
  const ta = typeof a;
  const tb = typeof b;
  if ((ta === 'object' || ta === 'bigint') && (tb === 'object' || tb === 'bigint'))
    return equal(toValue(a), toValue(b));
  if ((ta === 'bigint' && tb === 'number') || (ta === 'number' && tb === 'bigint'))
    return equal(a as Value, b as Value);
  return false;
}

/** OPA's total order, fast for two numbers or two strings. */
export function cmp(a: Mixed, b: Mixed): number {
  if (typeof a === typeof b && (typeof a === 'number' || typeof a === 'string'))
    return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
  return compare(toValue(a), toValue(b));
}

/** `x in coll` (internal.member_2). */
export function member(x: Mixed, coll: Mixed): boolean {
  if (Array.isArray(coll)) {
    if (typeof x === 'string' || typeof x === 'boolean') return coll.includes(x);
    for (const e of coll) if (eq(x, e ?? null)) return true;
    return false;
  }
  if (coll instanceof RegoSet) return coll.has(toValue(x));
  if (coll instanceof RegoObject) return coll.pairs().some(([, v]) => eq(x, v));
  if (isPlainObject(coll)) {
    for (const key in coll) if (Object.hasOwn(coll, key) && eq(x, coll[key] ?? null)) return true;
  }
  return false;
}

/** Keys and values of a collection, for generated loops; arrays are iterated in place instead. */
export function entries(coll: Mixed): [Mixed[], Mixed[]] {
  if (coll instanceof RegoObject) {
    const pairs = coll.pairs();
    return [pairs.map((p) => p[0]), pairs.map((p) => p[1])];
  }
  if (coll instanceof RegoSet) {
    const values = coll.values();
    return [values, values];
  }
  if (isPlainObject(coll)) {
    const keys = Object.keys(coll);
    return [keys, keys.map((k) => coll[k] ?? null)];
  }
  return [[], []];
}

/** A builtin call: its result, undefined, or FALLBACK on a builtin error (strictness decides). */
export function callBuiltin(
  builtin: Builtin,
  name: string,
  args: Value[],
  ctx: BuiltinContext,
): Value | undefined | typeof FALLBACK {
  try {
    return builtin.fn(args, name, ctx);
  } catch (err) {
    if (err instanceof BuiltinError) return FALLBACK;
    throw err;
  }
}

/** The helpers as generated code sees them (`H.field(…)`). */
export const RUNTIME = {
  field,
  get,
  toValue,
  eq,
  cmp,
  member,
  entries,
  callBuiltin,
  FALLBACK,
  RegoSet,
  RegoObject,
};
