/** Bitwise builtins on integers (within JS's safe-integer range, via BigInt). */
import { typeError } from '../errors.ts';
import type { Value } from '../values.ts';
import { type BuiltinTable, int } from './types.ts';

function binary(f: (a: bigint, b: bigint) => bigint) {
  return {
    arity: 2,
    fn: (args: Value[], name: string) => Number(f(BigInt(int(name, args, 0)), BigInt(int(name, args, 1)))),
  };
}

function shift(f: (a: bigint, b: bigint) => bigint) {
  return {
    arity: 2,
    fn: (args: Value[], name: string) => {
      const a = int(name, args, 0);
      const b = int(name, args, 1);
      if (b < 0)
        throw typeError(`${name}: operand 2 must be an unsigned integer number but got a negative integer`);
      return Number(f(BigInt(a), BigInt(b)));
    },
  };
}

export const bits: BuiltinTable = {
  'bits.and': binary((a, b) => a & b),
  'bits.or': binary((a, b) => a | b),
  'bits.xor': binary((a, b) => a ^ b),
  'bits.negate': { arity: 1, fn: (args, name) => Number(~BigInt(int(name, args, 0))) },
  'bits.lsh': shift((a, b) => a << b),
  'bits.rsh': shift((a, b) => a >> b),
};
