/** Aggregates over arrays, sets (and objects for `count`). */

import { typeError } from '../errors.ts';
import { compare, equal, RegoObject, RegoSet, typeName, type Value } from '../values.ts';
import { type BuiltinTable, collection, mustBe } from './types.ts';

function numbersOf(name: string, args: Value[]): number[] {
  return collection(name, args, 0).map((v) => {
    if (typeName(v) !== 'number')
      throw typeError(`${name}: operand 1 must be one of {set, array} containing numbers`);
    return Number(v as number | bigint);
  });
}

export const aggregates: BuiltinTable = {
  count: {
    arity: 1,
    fn: ([v], name) => {
      mustBe(name, 0, v!, 'array', 'object', 'set', 'string');
      if (typeof v === 'string') return [...v].length;
      if (Array.isArray(v)) return v.length;
      return (v as RegoObject | RegoSet).size;
    },
  },
  sum: { arity: 1, fn: (args, name) => numbersOf(name, args).reduce((a, b) => a + b, 0) },
  product: { arity: 1, fn: (args, name) => numbersOf(name, args).reduce((a, b) => a * b, 1) },
  max: {
    arity: 1,
    fn: (args, name) => {
      const items = collection(name, args, 0);
      return items.length === 0 ? undefined : items.reduce((a, b) => (compare(a, b) >= 0 ? a : b));
    },
  },
  min: {
    arity: 1,
    fn: (args, name) => {
      const items = collection(name, args, 0);
      return items.length === 0 ? undefined : items.reduce((a, b) => (compare(a, b) <= 0 ? a : b));
    },
  },
  sort: { arity: 1, fn: (args, name) => [...collection(name, args, 0)].sort(compare) },
  all: {
    arity: 1,
    fn: (args, name) => collection(name, args, 0).every((v) => v === true),
  },
  any: {
    arity: 1,
    fn: (args, name) => collection(name, args, 0).some((v) => v === true),
  },
  'internal.member_2': {
    arity: 2,
    fn: ([x, coll]) => {
      if (Array.isArray(coll)) return coll.some((v) => equal(v, x!));
      if (coll instanceof RegoSet) return coll.has(x!);
      if (coll instanceof RegoObject) return coll.pairs().some(([, v]) => equal(v, x!));
      return false;
    },
  },
  'internal.member_3': {
    arity: 3,
    fn: ([k, x, coll]) => {
      if (Array.isArray(coll))
        return typeof k === 'number' && coll[k] !== undefined && compare(coll[k]!, x!) === 0;
      if (coll instanceof RegoObject) {
        const v = coll.get(k!);
        return v !== undefined && compare(v, x!) === 0;
      }
      return false;
    },
  },
};
