/** Object builtins: `object.get/keys/union/union_n/remove/filter`. */
import { RegoObject, RegoSet, type Value } from '../values.ts';
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

export const objects: BuiltinTable = {
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
