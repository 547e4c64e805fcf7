/** Comparison operators: `==`, `!=`, `<`, `<=`, `>`, `>=` over OPA's total order of values. */
import { compare, equal } from '../values.ts';
import type { BuiltinTable } from './types.ts';

export const comparison: BuiltinTable = {
  equal: { arity: 2, fn: ([a, b]) => equal(a!, b!) },
  neq: { arity: 2, fn: ([a, b]) => !equal(a!, b!) },
  lt: { arity: 2, fn: ([a, b]) => compare(a!, b!) < 0 },
  lte: { arity: 2, fn: ([a, b]) => compare(a!, b!) <= 0 },
  gt: { arity: 2, fn: ([a, b]) => compare(a!, b!) > 0 },
  gte: { arity: 2, fn: ([a, b]) => compare(a!, b!) >= 0 },
};
