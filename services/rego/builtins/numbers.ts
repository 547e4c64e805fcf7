/** Arithmetic and number builtins. `-` on sets is set difference, as in OPA. */
import { builtinError, typeError } from '../errors.ts';
import { RegoSet, typeName, type Value } from '../values.ts';
import { type BuiltinTable, mustBe, num } from './types.ts';

/** A number's exact integer value, or undefined when it has a fraction. */
function integerOf(v: Value): bigint | undefined {
  if (typeof v === 'bigint') return v;
  return Number.isInteger(v) ? BigInt(v as number) : undefined;
}

/** An integer as a double when that is exact, else as a BigInt (the engine's number forms). */
function narrowed(r: bigint): number | bigint {
  return r >= Number.MIN_SAFE_INTEGER && r <= Number.MAX_SAFE_INTEGER ? Number(r) : r;
}

/**
 * `+`, `-`, `*` and `%` on two numbers, as OPA's `arithOp`: on integers of any size the result
 * is exact (a big.Int); doubles would round `9007199254740993 * 3`. The double result is used
 * whenever it is itself exact, which is every case within 2^53.
 */
function arithmetic(
  a: Value,
  b: Value,
  float: (x: number, y: number) => number,
  exact: (x: bigint, y: bigint) => bigint,
) {
  if (typeof a === 'number' && typeof b === 'number') {
    const r = float(a, b);
    if (Number.isSafeInteger(r) || !Number.isInteger(a) || !Number.isInteger(b)) return r;
  }
  const x = integerOf(a);
  const y = integerOf(b);
  return x === undefined || y === undefined ? float(Number(a), Number(b)) : narrowed(exact(x, y));
}

function arith(float: (x: number, y: number) => number, exact: (x: bigint, y: bigint) => bigint) {
  return {
    arity: 2,
    fn: (args: Value[], name: string) => {
      mustBe(name, 0, args[0]!, 'number');
      mustBe(name, 1, args[1]!, 'number');
      return arithmetic(args[0]!, args[1]!, float, exact);
    },
  };
}

export const numbers: BuiltinTable = {
  plus: arith(
    (x, y) => x + y,
    (x, y) => x + y,
  ),
  mul: arith(
    (x, y) => x * y,
    (x, y) => x * y,
  ),
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
      mustBe(name, 0, args[0]!, 'number');
      mustBe(name, 1, args[1]!, 'number');
      const [a, b] = [integerOf(args[0]!), integerOf(args[1]!)];
      if (a === undefined || b === undefined) throw builtinError('rem: modulo on floating-point number');
      if (b === 0n) throw builtinError('rem: modulo by zero');
      return typeof args[0] === 'number' && typeof args[1] === 'number'
        ? (args[0] as number) % (args[1] as number)
        : narrowed(a % b);
    },
  },
  minus: {
    arity: 2,
    fn: ([a, b], name) => {
      if (a instanceof RegoSet && b instanceof RegoSet)
        return new RegoSet(a.values().filter((v) => !b.has(v)));
      if (typeName(a!) === 'number' && typeName(b!) === 'number')
        return arithmetic(
          a!,
          b!,
          (x, y) => x - y,
          (x, y) => x - y,
        );
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
