/**
 * Runs one OPA conformance case and judges it the way OPA's own runner does (see
 * shared/conformance/opa/README.md): solutions compared as a set, numbers by value, sets as
 * arrays (sorted under `sort_bindings`), errors by code and message substring.
 */
import { isDeepStrictEqual } from 'node:util';
import { compile, RegoError } from '../index.ts';
import { toJSON, type Value } from '../values.ts';

export interface ConformanceCase {
  note: string;
  query: string;
  modules?: string[];
  data?: unknown;
  input?: unknown;
  input_term?: string;
  want_result?: unknown[];
  want_error_code?: string;
  want_error?: string;
  sort_bindings?: boolean;
  strict_error?: boolean;
}

export interface CaseOutcome {
  note: string;
  result: Record<string, unknown>[] | null;
  error: { code: string; message: string } | null;
  pass: boolean;
}

export async function runCase(c: ConformanceCase): Promise<CaseOutcome> {
  let result: Record<string, unknown>[] | null = null;
  let error: CaseOutcome['error'] = null;
  try {
    const modules = Object.fromEntries((c.modules ?? []).map((m, i) => [`module-${i}.rego`, m]));
    const policy = compile(modules);
    const inputValue = c.input_term === undefined ? undefined : inputTerm(c.input_term);
    const solutions = await policy.evalAsync(c.query, {
      input: c.input ?? undefined,
      inputValue,
      data: c.data ?? {},
      strictBuiltinErrors: c.strict_error ?? false,
    });
    result = solutions.map((b) => Object.fromEntries([...b].map(([k, v]) => [k, toJSON(v)])));
  } catch (err) {
    if (!(err instanceof RegoError)) {
      error = { code: 'internal_error', message: (err as Error).stack ?? String(err) };
    } else error = { code: err.code, message: err.detail };
  }
  return { note: c.note, result, error, pass: judge(c, result, error) };
}

/** `input_term` is a Rego term (it may hold sets): evaluated as a query `x = <term>`. */
function inputTerm(term: string): Value {
  const policy = compile({});
  const [solution] = policy.eval(`__input__ = ${term}`);
  const v = solution?.get('__input__');
  if (v === undefined) throw new RegoError('rego_parse_error', 'input_term is not a value');
  return v;
}

function judge(
  c: ConformanceCase,
  result: Record<string, unknown>[] | null,
  error: CaseOutcome['error'],
): boolean {
  if (c.want_error_code !== undefined || c.want_error !== undefined) {
    if (!error) return false;
    if (c.want_error_code !== undefined && error.code !== c.want_error_code) return false;
    // OPA's runner matches the error's text, `code: message`, so some cases name the code too.
    return c.want_error === undefined || `${error.code}: ${error.message}`.includes(c.want_error);
  }
  if (error || !result) return false;
  const want = (c.want_result ?? []).map((b) => normalize(b, c.sort_bindings ?? false));
  const got = result.map((b) => normalize(b, c.sort_bindings ?? false));
  if (want.length !== got.length) return false;
  const used = new Set<number>();
  return want.every((w) => {
    const i = got.findIndex((g, j) => !used.has(j) && isDeepStrictEqual(g, w));
    if (i < 0) return false;
    used.add(i);
    return true;
  });
}

function normalize(v: unknown, sortArrays: boolean): unknown {
  if (Array.isArray(v)) {
    const items = v.map((x) => normalize(x, sortArrays));
    return sortArrays ? items.sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1)) : items;
  }
  if (v !== null && typeof v === 'object') {
    return Object.fromEntries(
      Object.entries(v)
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([k, x]) => [k, normalize(x, sortArrays)]),
    );
  }
  return v;
}
