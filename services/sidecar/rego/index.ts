/**
 * Programmatic API: `compile(modules)` parses and compiles Rego modules once; `policy.eval(query)`
 * evaluates a query against `input` and `data` and returns OPA's result shape.
 */
import type { Body, Module } from './ast.ts';
import { builtinArity } from './builtins/index.ts';
import { type CompiledPlan, compileModules, Resolver } from './compiler.ts';
import { Evaluator } from './evaluator.ts';
import { parseModule, parseQuery, type RegoVersion } from './parser.ts';
import { deepVars } from './safety.ts';
import { fromJSON, type Value } from './values.ts';

export { RegoError } from './errors.ts';
export type { Value } from './values.ts';
export { fromJSON, RegoObject, RegoSet, toJSON } from './values.ts';

export interface CompileOptions {
  /** Read every module as v0 (OPA 0.x syntax), like `opa --v0-compatible`. */
  v0Compatible?: boolean;
}

export interface EvalInput {
  /** The `input` document, as JSON (`inputValue` takes a Rego value with sets). */
  input?: unknown;
  inputValue?: Value;
  data?: unknown;
  /** Builtin errors fail the query instead of making the call undefined. */
  strictBuiltinErrors?: boolean;
}

/** One solution: the values of the query's variables. */
export type Bindings = Map<string, Value>;

export class Policy {
  constructor(private readonly plan: CompiledPlan) {}

  /** All solutions of `query`; an empty list means the query is undefined. */
  eval(query: string, options: EvalInput = {}): Bindings[] {
    const body = new Resolver([], new Set(), new Map(), this.plan.arityOf).query(parseQuery(query));
    const input = options.inputValue ?? (options.input === undefined ? undefined : fromJSON(options.input));
    const evaluator = new Evaluator(this.plan, {
      input,
      data: fromJSON(options.data ?? {}),
      strictBuiltinErrors: options.strictBuiltinErrors,
    });
    return evaluator.query(body, queryVars(body));
  }
}

export function compile(modules: Record<string, string>, options: CompileOptions = {}): Policy {
  const version: RegoVersion | undefined = options.v0Compatible ? 'v0' : undefined;
  const parsed: Module[] = Object.entries(modules).map(([file, source]) =>
    parseModule(source, file, version),
  );
  return new Policy(compileModules(parsed, builtinArity));
}

/** Variables a query reports: those written by the user (not `_`), in order of appearance. */
function queryVars(body: Body): string[] {
  const vars = new Set<string>();
  for (const e of body) for (const v of deepVars(e)) if (!v.startsWith('_$')) vars.add(v);
  return [...vars];
}
