/** Set builtins and the `&` / `|` operators. */
import { RegoSet, type Value } from '../values.ts';
import { type BuiltinTable, set } from './types.ts';

function setsOf(name: string, args: Value[]): RegoSet[] {
  return set(name, args, 0)
    .values()
    .map((v) => {
      if (!(v instanceof RegoSet)) set(name, [v], 0);
      return v as RegoSet;
    });
}

export const sets: BuiltinTable = {
  and: {
    arity: 2,
    fn: (args, name) => {
      const a = set(name, args, 0);
      const b = set(name, args, 1);
      return new RegoSet(a.values().filter((v) => b.has(v)));
    },
  },
  or: {
    arity: 2,
    fn: (args, name) => new RegoSet([...set(name, args, 0).values(), ...set(name, args, 1).values()]),
  },
  intersection: {
    arity: 1,
    fn: (args, name) => {
      const all = setsOf(name, args);
      if (all.length === 0) return new RegoSet();
      return new RegoSet(all[0]!.values().filter((v) => all.every((s) => s.has(v))));
    },
  },
  union: {
    arity: 1,
    fn: (args, name) => new RegoSet(setsOf(name, args).flatMap((s) => s.values())),
  },
};
