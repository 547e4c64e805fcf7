/**
 * Programmatic API: `compile(modules)` parses and compiles Rego modules once; `policy.eval(query)`
 * evaluates a query against `input` and `data` and returns OPA's result shape.
 */
import type { Body, Module, Term } from './ast.ts';
import { inRounds } from './async-calls.ts';
import type { BuiltinContext } from './builtins/types.ts';
import { type CompiledPlan, compileModules, Resolver, type RuleNode } from './compiler.ts';
import { FALLBACK } from './direct.ts';
import { RegoError } from './errors.ts';
import { Evaluator } from './evaluator.ts';
import { CAPTURE_PREFIX, captureExpressions, expressionTexts } from './expressions.ts';
import { formatExpr } from './format.ts';
import { type GeneratedRuleSet, generatedRuleSet } from './generated.ts';
import { type HostBuiltin, withHostBuiltins } from './host-builtins.ts';
import { toMongoQuery as bodiesToMongo, type MongoFilter } from './mongo.ts';
import { parseModule, parseQuery, type RegoVersion } from './parser.ts';
import { PartialEvaluator } from './partial.ts';
import { deepVars } from './safety.ts';
import { refPath } from './terms.ts';
import { fromJSON, type Value } from './values.ts';

export type { HostBuiltin } from './host-builtins.ts';
export { admitsEveryRow, type MongoFilter, RowFilterError } from './mongo.ts';
export type { Value } from './values.ts';
export { fromJSON, jsonText, RegoObject, RegoSet, toJSON, toJSONText } from './values.ts';
export { RegoError };

/** Bound of the parsed-query cache, so that ad-hoc queries cannot grow it without limit. */
const MAX_CACHED_QUERIES = 256;

export interface CompileOptions {
  /** Read every module as v0 (OPA 0.x syntax), like `opa --v0-compatible`. */
  v0Compatible?: boolean;
  /**
   * Builtins of the host program, by the name policies call them (dots allowed: `rond.find_one`).
   * Calls to names neither standard nor given here stay a compile error.
   */
  builtins?: Record<string, HostBuiltin>;
}

export interface EvalInput {
  /** The `input` document, as JSON (`inputValue` takes a Rego value with sets). */
  input?: unknown;
  inputValue?: Value;
  data?: unknown;
  /** Builtin errors fail the query instead of making the call undefined. */
  strictBuiltinErrors?: boolean;
  /** Receives the lines of `print(...)` in the policy; without it `print` is silent. */
  print?: (line: string) => void;
}

/** One solution: the values of the query's variables. */
export type Bindings = Map<string, Value>;

/** One solution as `opa eval` shows it: each query expression's value, and the bindings. */
export interface ExpressionSolution {
  expressions: { value: Value; text: string; location: { row: number; col: number } }[];
  bindings: Bindings;
}

export interface PartialInput extends Omit<EvalInput, 'strictBuiltinErrors'> {
  /** Unknown documents; default `["data.resources"]`. */
  unknowns?: string[];
}

/** The conditions on the unknowns under which a query holds: an OR of bodies, each an AND. */
export interface Residual {
  queries: Body[];
}

/** Residual queries as Rego text, one list of expressions per query. */
export function formatResidual(residual: Residual): string[][] {
  return residual.queries.map((body) => body.map(formatExpr));
}

/** The MongoDB filter of a row-filter residual, as Rönd builds it. */
export function toMongoQuery(residual: Residual): MongoFilter {
  return bodiesToMongo(residual.queries);
}

interface ResolvedQuery {
  body: Body;
  /** The variables each solution reports. */
  vars: string[];
  /** `data.p.r` or `x := data.p.r` of a generated rule set: its function may answer alone. */
  rule?: { fn: GeneratedRuleSet; bind?: string };
}

export class Policy {
  private readonly queries = new Map<string, ResolvedQuery>();
  constructor(private readonly plan: CompiledPlan) {}

  /** All solutions of `query`; an empty list means the query is undefined. */
  eval(query: string, options: EvalInput = {}): Bindings[] {
    return this.solutions(query, options);
  }

  /** `eval` for policies that call asynchronous builtins (it runs synchronous ones too). */
  evalAsync(query: string, options: EvalInput = {}): Promise<Bindings[]> {
    return inRounds((ctx) => this.solutions(query, options, ctx));
  }

  /** All solutions of `query` with the value of each of its expressions (`opa eval`'s shape). */
  evalExpressions(query: string, options: EvalInput = {}): ExpressionSolution[] {
    return this.expressionSolutions(query, options);
  }

  evalExpressionsAsync(query: string, options: EvalInput = {}): Promise<ExpressionSolution[]> {
    return inRounds((ctx) => this.expressionSolutions(query, options, ctx));
  }

  private solutions(query: string, options: EvalInput, ctx?: BuiltinContext): Bindings[] {
    const { body, vars, rule } = this.resolve(query);
    if (rule) {
      const value = rule.fn(options.inputValue ?? options.input, ctx);
      if (value !== FALLBACK) {
        if (rule.bind) return value === undefined ? [] : [new Map([[rule.bind, value]])];
        return value === undefined || value === false ? [] : [new Map()];
      }
    }
    return this.evaluator(options, ctx).query(body, vars);
  }

  private expressionSolutions(query: string, options: EvalInput, ctx?: BuiltinContext): ExpressionSolution[] {
    const parsed = parseQuery(query);
    const texts = expressionTexts(query, parsed);
    const { body, captures } = captureExpressions(parsed, (t) => {
      const arity = t.type === 'call' ? this.plan.arityOf(t.name) : undefined;
      return t.type === 'call' && arity !== undefined && t.args.length === arity + 1;
    });
    const resolved = new Resolver([], new Set(), new Map(), this.plan.arityOf).query(body);
    return this.evaluator(options, ctx)
      .query(resolved, queryVars(resolved))
      .map((solution) => ({
        expressions: parsed.map((e, i) => {
          const capture = captures[i];
          const value = capture === undefined ? true : solution.get(capture)!;
          return { value, text: texts[i]!, location: { row: e.loc.row, col: e.loc.col } };
        }),
        bindings: new Map([...solution].filter(([name]) => !name.startsWith(CAPTURE_PREFIX))),
      }));
  }

  /** Paths (`data.pkg.rule`) of the policy's rules, functions excluded, in a stable order. */
  rulePaths(): string[] {
    const paths: string[] = [];
    const visit = (node: RuleNode) => {
      if (node.ruleSet && node.ruleSet.kind !== 'function') paths.push(node.ruleSet.path.join('.'));
      for (const child of node.children.values()) visit(child);
    };
    visit(this.plan.root);
    return paths.sort();
  }

  /** Partial evaluation of `query` with `unknowns` left open (see partial.ts). */
  partial(query: string, options: PartialInput = {}): Residual {
    return this.residual(query, options);
  }

  /** `partial` for policies that call asynchronous builtins with known arguments. */
  partialAsync(query: string, options: PartialInput = {}): Promise<Residual> {
    return inRounds((ctx) => this.residual(query, options, ctx));
  }

  private residual(query: string, options: PartialInput, ctx?: BuiltinContext): Residual {
    const { body } = this.resolve(query);
    const evaluator = this.evaluator(options, ctx);
    const unknowns = (options.unknowns ?? ['data.resources']).map((u) => {
      const [root, ...path] = u.split('.');
      if (root !== 'data' || path.length === 0)
        throw new RegoError('rego_compile_error', `unknown must be a data path: ${u}`);
      return path;
    });
    return { queries: new PartialEvaluator(this.plan, evaluator, unknowns).residuals(body) };
  }

  /** Queries are parsed and checked once per policy: the sidecar asks the same few repeatedly. */
  private resolve(query: string): ResolvedQuery {
    let resolved = this.queries.get(query);
    if (!resolved) {
      const body = new Resolver([], new Set(), new Map(), this.plan.arityOf).query(parseQuery(query));
      resolved = { body, vars: queryVars(body), rule: this.ruleQuery(body) };
      if (this.queries.size >= MAX_CACHED_QUERIES) this.queries.clear();
      this.queries.set(query, resolved);
    }
    return resolved;
  }

  /** The generated rule set a query only reads, maybe binding it to a variable (`x := data.p.r`). */
  private ruleQuery(body: Body): ResolvedQuery['rule'] {
    const e = body[0];
    if (body.length !== 1 || !e || e.negated || e.with.length > 0) return undefined;
    let ref: Term | undefined;
    let bind: string | undefined;
    if (e.type === 'term') ref = e.term;
    else if (e.type === 'assign' || e.type === 'unify') {
      const [target, source] = e.left.type === 'var' ? [e.left, e.right] : [e.right, e.left];
      if (
        target.type !== 'var' ||
        target.name.startsWith('_$') ||
        target.name === 'input' ||
        target.name === 'data'
      )
        return undefined;
      ref = source;
      bind = target.name;
    }
    const path = ref && refPath(ref);
    if (path?.[0] !== 'data') return undefined;
    let node: RuleNode | undefined = this.plan.root;
    for (const key of path.slice(1)) node = node?.children.get(key);
    const ruleSet = node?.ruleSet;
    const fn = ruleSet && node?.children.size === 0 ? generatedRuleSet(ruleSet, this.plan) : null;
    return fn ? { fn, bind } : undefined;
  }

  private evaluator(options: EvalInput, builtinContext?: BuiltinContext): Evaluator {
    const input = options.inputValue ?? (options.input === undefined ? undefined : fromJSON(options.input));
    return new Evaluator(this.plan, {
      input,
      data: fromJSON(options.data ?? {}),
      strictBuiltinErrors: options.strictBuiltinErrors,
      print: options.print,
      builtinContext,
    });
  }
}

export function compile(modules: Record<string, string>, options: CompileOptions = {}): Policy {
  const version: RegoVersion | undefined = options.v0Compatible ? 'v0' : undefined;
  const parsed: Module[] = Object.entries(modules).map(([file, source]) =>
    parseModule(source, file, version),
  );
  return new Policy(compileModules(parsed, withHostBuiltins(options.builtins)));
}

/** Variables a query reports: those written by the user (not `_`), in order of appearance. */
function queryVars(body: Body): string[] {
  const vars = new Set<string>();
  for (const e of body) for (const v of deepVars(e)) if (!v.startsWith('_$')) vars.add(v);
  return [...vars];
}
