/** Arithmetic and number builtins. `-` on sets is set difference, as in OPA. */
import { builtinError, typeError } from '../errors.ts';
import { RegoSet, typeName, type Value } from '../values.ts';
import { type BuiltinTable, mustBe, num } from './types.ts';

function arith(f: (a: number, b: number) => number | undefined) {
  return {
    arity: 2,
    fn: (args: Value[], name: string) => {
      const a = num(name, args, 0);
      const b = num(name, args, 1);
      return f(a, b);
    },
  };
}

export const numbers: BuiltinTable = {
  plus: arith((a, b) => a + b),
  mul: arith((a, b) => a * b),
  div: {
    arity: 2,
    fn: (args, name) => {
      const a = num(name, args, 0);
      const b = num(name, args, 1);
      if (b === 0) throw builtinError('div: divide by zero');
      return a / b;
    },
  },
  rem: {
    arity: 2,
    fn: (args, name) => {
      const a = num(name, args, 0);
      const b = num(name, args, 1);
      if (!Number.isInteger(a) || !Number.isInteger(b))
        throw builtinError('rem: modulo on floating-point number');
      if (b === 0) throw builtinError('rem: modulo by zero');
      return a % b;
    },
  },
  minus: {
    arity: 2,
    fn: ([a, b], name) => {
      if (a instanceof RegoSet && b instanceof RegoSet)
        return new RegoSet(a.values().filter((v) => !b.has(v)));
      if (typeName(a!) === 'number' && typeName(b!) === 'number') return Number(a) - Number(b);
      if (typeName(a!) === 'number' || a instanceof RegoSet) {
        mustBe(name, 1, b!, typeName(a!));
      }
      throw typeError(`${name}: operand 1 must be one of {number, set} but got ${typeName(a!)}`);
    },
  },
  abs: { arity: 1, fn: (args, name) => Math.abs(num(name, args, 0)) },
  round: { arity: 1, fn: (args, name) => roundHalfAway(num(name, args, 0)) },
  ceil: { arity: 1, fn: (args, name) => Math.ceil(num(name, args, 0)) },
  floor: { arity: 1, fn: (args, name) => Math.floor(num(name, args, 0)) },
  'numbers.range': {
    arity: 2,
    fn: (args, name) => range(intOperand(name, args, 0), intOperand(name, args, 1), 1),
  },
  'numbers.range_step': {
    arity: 3,
    fn: (args, name) => {
      const step = intOperand(name, args, 2);
      if (step <= 0) throw builtinError(`${name}: step must be a positive number above zero`);
      return range(intOperand(name, args, 0), intOperand(name, args, 1), step);
    },
  },
};

function roundHalfAway(n: number): number {
  return Math.sign(n) * Math.round(Math.abs(n));
}

function intOperand(name: string, args: Value[], i: number): number {
  const n = num(name, args, i);
  if (!Number.isInteger(n))
    throw typeError(`${name}: operand ${i + 1} must be integer number but got floating-point number`);
  return n;
}

function range(a: number, b: number, step: number): number[] {
  const out: number[] = [];
  if (a <= b) for (let i = a; i <= b; i += step) out.push(i);
  else for (let i = a; i >= b; i -= step) out.push(i);
  return out;
}
