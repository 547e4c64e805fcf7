/** Test helpers: compile modules and read the values a query binds, as JSON; the shared OPA cases. */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { compile, type EvalInput, RegoError, toJSON } from '../../../services/rego/index.ts';
import { thrown } from '../../support/thrown.ts';

/** Every solution of `query` as `{var: json}` objects. */
export function solutions(
  modules: Record<string, string>,
  query: string,
  input: EvalInput = {},
): Record<string, unknown>[] {
  return compile(modules)
    .eval(query, input)
    .map((b) => Object.fromEntries([...b].map(([k, v]) => [k, toJSON(v)])));
}

/** The value of `x` in `query`'s single solution, or undefined when the query is undefined. */
export function xOf(rego: string, query = 'x := data.test.p', input: EvalInput = {}): unknown {
  const all = solutions({ 'test.rego': rego }, query, input);
  if (all.length > 1) throw new Error(`expected at most one solution, got ${all.length}`);
  return all[0]?.x;
}

/** The RegoError that compiling or evaluating throws. */
export function errorOf(fn: () => unknown): RegoError {
  return thrown(RegoError, fn);
}

/**
 * `shared/conformance/opa/v1` beside the nearest checkout holding it: the repository's parent for
 * the main checkout, one level further up for a worktree under `wt/`.
 */
export function conformanceCasesDir(): string {
  for (let dir = join(import.meta.dirname, '../../..'); dir !== dirname(dir); dir = dirname(dir)) {
    const cases = join(dirname(dir), 'shared/conformance/opa/v1');
    if (existsSync(cases)) return cases;
  }
  throw new Error('shared/conformance/opa/v1 not found beside the repository or above it');
}
