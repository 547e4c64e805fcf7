/** Object builtins: `object.get/keys/union/union_n/remove/filter`. */
import { equal, RegoObject, RegoSet, type Value } from '../values.ts';
import { type BuiltinTable, collection, mustBe, obj } from './types.ts';

function keysOf(name: string, args: Value[], i: number): Value[] {
  const v = args[i]!;
  mustBe(name, i, v, 'object', 'set', 'array');
  if (v instanceof RegoObject) return v.keys();
  return collection(name, args, i);
}

function union(a: RegoObject, b: RegoObject): RegoObject {
  const out = new RegoObject(a.pairs());
  for (const [k, v] of b.pairs()) {
    const prev = out.get(k);
    out.set(k, prev instanceof RegoObject && v instanceof RegoObject ? union(prev, v) : v);
  }
  return out;
}

/** OPA's `object.subset`: objects recursively, arrays as contiguous runs, sets as subsets. */
function isSubset(sup: Value, sub: Value): boolean {
  if (sup instanceof RegoObject && sub instanceof RegoObject) {
    return sub.pairs().every(([k, v]) => {
      const s = sup.get(k);
      return s !== undefined && isSubset(s, v);
    });
  }
  if (sup instanceof RegoSet && sub instanceof RegoSet) return sub.values().every((v) => sup.has(v));
  if (Array.isArray(sup) && Array.isArray(sub)) {
    if (sub.length === 0) return true;
    for (let i = 0; i + sub.length <= sup.length; i++) {
      if (sub.every((v, j) => equal(sup[i + j]!, v))) return true;
    }
    return false;
  }
  if (Array.isArray(sup) && sub instanceof RegoSet)
    return sub.values().every((v) => sup.some((x) => equal(x, v)));
  return equal(sup, sub);
}

export const objects: BuiltinTable = {
  'object.subset': {
    arity: 2,
    fn: (args, name) => {
      mustBe(name, 0, args[0]!, 'object', 'array', 'set');
      mustBe(name, 1, args[1]!, 'object', 'array', 'set');
      return isSubset(args[0]!, args[1]!);
    },
  },
  'object.get': {
    arity: 3,
    fn: (args, name) => {
      const o = obj(name, args, 0);
      const key = args[1]!;
      if (!Array.isArray(key)) return o.get(key) ?? args[2]!;
      let cur: Value = o;
      for (const k of key) {
        const next: Value | undefined =
          cur instanceof RegoObject
            ? cur.get(k)
            : Array.isArray(cur) && typeof k === 'number'
              ? cur[k]
              : cur instanceof RegoSet && cur.has(k)
                ? k
                : undefined;
        if (next === undefined) return args[2]!;
        cur = next;
      }
      return cur;
    },
  },
  'object.keys': { arity: 1, fn: (args, name) => new RegoSet(obj(name, args, 0).keys()) },
  'object.union': { arity: 2, fn: (args, name) => union(obj(name, args, 0), obj(name, args, 1)) },
  'object.union_n': {
    arity: 1,
    fn: (args, name) => {
      mustBe(name, 0, args[0]!, 'array');
      return (args[0] as Value[]).reduce<RegoObject>((acc, o, i) => {
        mustBe(name, i, o, 'object');
        return union(acc, o as RegoObject);
      }, new RegoObject());
    },
  },
  'object.remove': {
    arity: 2,
    fn: (args, name) => {
      const o = obj(name, args, 0);
      const out = new RegoObject(o.pairs());
      for (const k of keysOf(name, args, 1)) out.delete(k);
      return out;
    },
  },
  'object.filter': {
    arity: 2,
    fn: (args, name) => {
      const o = obj(name, args, 0);
      const keep = keysOf(name, args, 1);
      const out = new RegoObject();
      for (const k of keep) {
        const v = o.get(k);
        if (v !== undefined) out.set(k, v);
      }
      return out;
    },
  },
};
