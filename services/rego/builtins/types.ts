/** The shape of a builtin function and helpers that check operands with OPA's messages. */
import type { AsyncCalls } from '../async-calls.ts';
import { typeError } from '../errors.ts';
import { RegoObject, RegoSet, type TypeName, typeName, type Value } from '../values.ts';

/** What one evaluation shares between builtin calls. */
export interface BuiltinContext {
  /** `time.now_ns`: one instant per evaluation, as in OPA. */
  readonly nowNs: number;
  /** Settled results of asynchronous builtins; absent outside `evalAsync`/`partialAsync`. */
  readonly calls?: AsyncCalls;
}

/** An evaluation's context; the clock is read once, when `time.now_ns` first needs it. */
class EvaluationContext implements BuiltinContext {
  private now: number | undefined;
  constructor(readonly calls?: AsyncCalls) {}
  get nowNs(): number {
    this.now ??= Date.now() * 1e6;
    return this.now;
  }
}

export function newBuiltinContext(calls?: AsyncCalls): BuiltinContext {
  return new EvaluationContext(calls);
}

export interface Builtin {
  arity: number;
  /** Returns the result, or undefined when the call is undefined. Throws BuiltinError on error. */
  fn: (args: Value[], name: string, ctx: BuiltinContext) => Value | undefined;
  /** For relations such as `walk`: every result, each one a solution. */
  all?: (args: Value[], name: string) => Value[];
}

export type BuiltinTable = Record<string, Builtin>;

export function mustBe(name: string, index: number, v: Value, ...types: TypeName[]): void {
  if (types.includes(typeName(v))) return;
  const expected = types.length === 1 ? types[0] : `one of {${types.join(', ')}}`;
  throw typeError(`${name}: operand ${index + 1} must be ${expected} but got ${typeName(v)}`);
}

export function str(name: string, args: Value[], i: number): string {
  mustBe(name, i, args[i]!, 'string');
  return args[i] as string;
}

/** A number operand; BigInt integers become doubles (arithmetic is not exact beyond 2^53). */
export function num(name: string, args: Value[], i: number): number {
  mustBe(name, i, args[i]!, 'number');
  return Number(args[i] as number | bigint);
}

export function arr(name: string, args: Value[], i: number): Value[] {
  mustBe(name, i, args[i]!, 'array');
  return args[i] as Value[];
}

export function obj(name: string, args: Value[], i: number): RegoObject {
  mustBe(name, i, args[i]!, 'object');
  return args[i] as RegoObject;
}

export function set(name: string, args: Value[], i: number): RegoSet {
  mustBe(name, i, args[i]!, 'set');
  return args[i] as RegoSet;
}

export function int(name: string, args: Value[], i: number): number {
  const n = num(name, args, i);
  if (!Number.isInteger(n))
    throw typeError(`${name}: operand ${i + 1} must be integer number but got floating-point number`);
  return n;
}

/** Elements of an array or set operand. */
export function collection(name: string, args: Value[], i: number): Value[] {
  const v = args[i]!;
  mustBe(name, i, v, 'array', 'set');
  return Array.isArray(v) ? v : (v as RegoSet).sorted();
}

export function fn1(f: (a: Value, name: string) => Value | undefined): Builtin {
  return { arity: 1, fn: (args, name) => f(args[0]!, name) };
}

export { RegoObject, RegoSet };
