/** Array builtins. */
import type { Value } from '../values.ts';
import { arr, type BuiltinTable, int } from './types.ts';

export const arrays: BuiltinTable = {
  'array.concat': { arity: 2, fn: (args, name) => [...arr(name, args, 0), ...arr(name, args, 1)] },
  'array.slice': {
    arity: 3,
    fn: (args, name) => {
      const a = arr(name, args, 0);
      let start = int(name, args, 1);
      let stop = int(name, args, 2);
      start = Math.max(0, start);
      stop = Math.min(a.length, stop);
      return start >= stop ? [] : a.slice(start, stop);
    },
  },
  'array.reverse': { arity: 1, fn: (args, name) => [...arr(name, args, 0)].reverse() as Value[] },
};
