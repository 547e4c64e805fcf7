/** Calls one builtin expression in an empty policy, as OPA's documentation shows them. */
import type { RegoError } from '../../../../services/rego/index.ts';
import { errorOf, solutions } from '../helpers.ts';

/** The value of `expr`, or undefined when the call is undefined (builtin errors swallowed). */
export function value(expr: string): unknown {
  return solutions({}, `x := ${expr}`)[0]?.x;
}

/** The error `expr` raises with strict builtin errors: `code: message`. */
export function failure(expr: string): string {
  const err: RegoError = errorOf(() => solutions({}, `x := ${expr}`, { strictBuiltinErrors: true }));
  return `${err.code}: ${err.detail}`;
}
