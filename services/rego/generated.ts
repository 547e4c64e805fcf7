/**
 * Complete rules compiled to JavaScript source (`new Function`), for the fragment authorization
 * policies are made of: refs into `input`, local variables and other such rules; comparisons,
 * `in`, `some … in`, iteration over `x[_]`, `not`, `:=`/`=` to a variable, comprehensions and
 * builtin calls. Generated code reads JSON input in place (generated-runtime.ts) and allocates
 * nothing for a test like `"admin" in input.user.groups`. A rule set outside the fragment is not
 * generated (the closure evaluator runs it); at run time, anything unusual (conflicting values, a
 * builtin error) returns FALLBACK and the evaluator recomputes the rule set: evaluation is pure,
 * so that costs time only.
 */
import type { Body, Expr, Rule, Term } from './ast.ts';
import { type BuiltinContext, newBuiltinContext } from './builtins/types.ts';
import type { CompiledPlan, RuleNode, RuleSet } from './compiler.ts';
import { FALLBACK } from './direct.ts';
import { field, RUNTIME, toValue } from './generated-runtime.ts';
import { constantValue } from './terms.ts';
import { equal, keyOf, RegoSet, type Value } from './values.ts';

/** A rule set's value for an input; `ctx` is created when the rules call builtins and none is given. */
export type GeneratedRuleSet = (
  input: unknown,
  ctx: BuiltinContext | undefined,
) => Value | undefined | typeof FALLBACK;

/** Bound of a rule set's static cost (rule bodies run, callees included), beyond which the evaluator's cache wins. */
const MAX_COST = 400;

interface Generated {
  fn: GeneratedRuleSet | null;
  cost: number;
  /** Whether the rules (or those they read) call builtins, which need the evaluation's context. */
  usesContext: boolean;
}

const generated = new WeakMap<RuleSet, Generated>();

/** The generated function of a rule set, or null when it is outside the fragment (tried once). */
export function generatedRuleSet(rs: RuleSet, plan: CompiledPlan): GeneratedRuleSet | null {
  return generate(rs, plan).fn;
}

function generate(rs: RuleSet, plan: CompiledPlan): Generated {
  let g = generated.get(rs);
  if (!g) {
    // Recursion is a compile error, so a rule set never reaches itself here.
    g = attempt(rs, plan);
    generated.set(rs, g);
  }
  return g;
}

const NOT_GENERATED: Generated = { fn: null, cost: 0, usesContext: false };

function attempt(rs: RuleSet, plan: CompiledPlan): Generated {
  if ((rs.kind !== 'complete' && rs.kind !== 'set') || rs.rules.some((r) => r.else)) return NOT_GENERATED;
  const defaultTerm = rs.defaultRule?.head.value;
  const defaultValue = defaultTerm ? constantValue(defaultTerm) : undefined;
  if (defaultTerm && defaultValue === undefined) return NOT_GENERATED;
  const code = new RuleCode(plan);
  let sources: string[];
  try {
    sources = rs.rules.map((rule) => (rs.kind === 'set' ? code.setRule(rule) : code.rule(rule)));
  } catch (err) {
    if (err === OUTSIDE) return NOT_GENERATED;
    throw err;
  }
  const cost = rs.rules.length + code.calleeCost;
  if (cost > MAX_COST) return NOT_GENERATED;
  const make = new Function('H', 'K', `"use strict"; return [${sources.join(',\n')}];`);
  const ruleFns = make(RUNTIME, code.constants) as RuleFn[];
  const candidates = candidatesOf(rs, ruleFns);
  const fn = rs.kind === 'set' ? setFunction(candidates) : ruleSetFunction(rs, candidates, defaultValue);
  if (!code.usesContext) return { fn, cost, usesContext: false };
  return { fn: (input, ctx) => fn(input, ctx ?? newBuiltinContext()), cost, usesContext: true };
}

/** One generated rule: its value (complete rules), or its elements added to `out` (set rules). */
type RuleFn = (
  input: unknown,
  ctx: BuiltinContext | undefined,
  out?: RegoSet,
) => Value | undefined | typeof FALLBACK;
type Candidates = (input: unknown) => RuleFn[];

/**
 * The rules that can hold for an input: all, or with an index those guarded by the input's value
 * (string guards, most of them, are looked up by the string itself, other values by `keyOf`).
 */
function candidatesOf(rs: RuleSet, ruleFns: RuleFn[]): Candidates {
  const index = rs.index;
  if (!index) return () => ruleFns;
  const fnOf = new Map(rs.rules.map((r, i) => [r, ruleFns[i]!]));
  const byString = new Map<string, RuleFn[]>();
  const byKey = new Map<string, RuleFn[]>();
  for (const [key, rules] of index.byValue) {
    const fns = rules.map((r) => fnOf.get(r)!);
    if (key.startsWith('"')) byString.set(JSON.parse(key) as string, fns);
    else byKey.set(key, fns);
  }
  const unguarded = index.unguarded.map((r) => fnOf.get(r)!);
  return (input) => {
    let v: unknown = input;
    for (let i = 0; i < index.path.length && v !== undefined; i++) v = field(v, index.path[i]!);
    let fns: RuleFn[] | undefined;
    if (typeof v === 'string') fns = byString.get(v);
    else if (v !== undefined) fns = byKey.get(keyOf(toValue(v)));
    return fns ?? unguarded;
  };
}

/**
 * A complete rule set's value from its rules' values: they must agree (else FALLBACK: the
 * evaluator reports the conflict); the default when none holds.
 */
function ruleSetFunction(
  rs: RuleSet,
  candidates: Candidates,
  defaultValue: Value | undefined,
): GeneratedRuleSet {
  const heads = rs.rules.map((r) => (r.head.value ? constantValue(r.head.value) : true));
  // Rules that all give one constant: the first that holds decides.
  const sameConstant = heads.every((h) => h !== undefined && equal(h, heads[0]!));
  return (input, ctx) => {
    let value: Value | undefined;
    for (const fn of candidates(input)) {
      const v = fn(input, ctx);
      if (v === FALLBACK) return FALLBACK;
      if (v === undefined) continue;
      if (sameConstant) return v;
      if (value === undefined) value = v;
      else if (!equal(value, v)) return FALLBACK;
    }
    return value !== undefined ? value : defaultValue;
  };
}

/** A partial set: every rule's elements. */
function setFunction(candidates: Candidates): GeneratedRuleSet {
  return (input, ctx) => {
    const out = new RegoSet();
    for (const fn of candidates(input)) if (fn(input, ctx, out) === FALLBACK) return FALLBACK;
    return out;
  };
}

/** Thrown while generating a rule outside the fragment. */
const OUTSIDE = Symbol('outside the generated fragment');

function outside(): never {
  throw OUTSIDE;
}

/** Rego variables bound at a point of the generated code, with their JavaScript names. */
type Scope = ReadonlyMap<string, string>;
/** The code to run once the expressions before have succeeded. */
type Next = (scope: Scope) => string;
/** The code to run with a term's value (a JavaScript expression evaluated once, side-effect free). */
type WithValue = (js: string, scope: Scope) => string;

const RELATIONS: Record<string, string> = { lt: '<', lte: '<=', gt: '>', gte: '>=' };

/** The source of one rule set's rule functions, sharing their constants. */
class RuleCode {
  readonly constants: unknown[] = [];
  /** The static cost of the rule sets the rules call. */
  calleeCost = 0;
  usesContext = false;
  private names = 0;

  constructor(private readonly plan: CompiledPlan) {}

  rule(rule: Rule): string {
    const head = rule.head.value;
    const constant = head ? constantValue(head) : true;
    if (constant !== undefined) {
      const value = this.literal(constant);
      return `function (input, ctx) { ${this.body(rule.body, 0, new Map(), () => `return ${value};`)} return undefined; }`;
    }
    const body = this.body(rule.body, 0, new Map(), (scope) =>
      this.term(head!, scope, (v) => {
        const hv = this.name();
        return `const ${hv} = H.toValue(${v}); if (r === undefined) r = ${hv}; else if (!H.eq(r, ${hv})) return H.FALLBACK;`;
      }),
    );
    return `function (input, ctx) { let r; ${body} return r; }`;
  }

  /** A partial set rule: each solution adds its element to `out`. */
  setRule(rule: Rule): string {
    const body = this.body(rule.body, 0, new Map(), (scope) =>
      this.term(rule.head.key!, scope, (v) => `out.add(${asValue(v)});`),
    );
    return `function (input, ctx, out) { ${body} return undefined; }`;
  }

  private name(): string {
    return `v${this.names++}`;
  }

  private constant(v: unknown): string {
    this.constants.push(v);
    return `K[${this.constants.length - 1}]`;
  }

  /** A value as a JavaScript expression: scalars as literals, others as shared constants. */
  private literal(v: Value): string {
    if (v === null || typeof v === 'boolean' || typeof v === 'string') return JSON.stringify(v);
    if (typeof v === 'number' && Number.isFinite(v)) return Object.is(v, -0) ? '-0' : String(v);
    return this.constant(v);
  }

  body(body: Body, i: number, scope: Scope, next: Next): string {
    if (i === body.length) return next(scope);
    return this.expr(body[i]!, scope, (s) => this.body(body, i + 1, s, next));
  }

  private expr(e: Expr, scope: Scope, next: Next): string {
    if (e.with.length > 0) outside();
    if (!e.negated) return this.positive(e, scope, next);
    // `not`: the expression's own bindings stay inside it.
    const found = this.name();
    const block = this.name();
    const inner = this.positive(e, scope, () => `${found} = true; break ${block};`);
    return `let ${found} = false; ${block}: { ${inner} } if (!${found}) { ${next(scope)} }`;
  }

  private positive(e: Expr, scope: Scope, next: Next): string {
    switch (e.type) {
      case 'term': {
        const t = e.term;
        if (t.type === 'call' && t.args.length === (this.plan.arityOf(t.name) ?? -1) + 1) outside();
        return this.term(t, scope, (v, s) => `if (${v} !== undefined && ${v} !== false) { ${next(s)} }`);
      }
      case 'assign':
      case 'unify':
        return this.unify(e.left, e.right, scope, next);
      case 'some': {
        const inner = new Map(scope);
        for (const v of e.vars) if (v.type === 'var') inner.delete(v.name);
        return next(inner);
      }
      case 'somein':
        return this.term(e.collection, scope, (coll, s) => {
          // `some` declares its variables: they are new even when an outer one has the name.
          const inner = new Map(s);
          for (const p of [e.key, e.value]) if (p?.type === 'var') inner.delete(p.name);
          return this.loop(coll, inner, (key, value, s2) =>
            this.match(e.value, value, s2, (s3) => (e.key ? this.match(e.key, key, s3, next) : next(s3))),
          );
        });
      default:
        return outside();
    }
  }

  /** `a = b` / `a := b`: binds a variable side that is not bound yet, else tests equality. */
  private unify(a: Term, b: Term, scope: Scope, next: Next): string {
    if (this.isUnboundVar(a, scope)) return this.term(b, scope, (v, s) => this.match(a, v, s, next));
    if (this.isUnboundVar(b, scope)) return this.term(a, scope, (v, s) => this.match(b, v, s, next));
    return this.term(a, scope, (x, s) =>
      this.term(b, s, (y, s2) => `if (${this.equality(x, y)}) { ${next(s2)} }`),
    );
  }

  private isUnboundVar(t: Term, scope: Scope): boolean {
    return t.type === 'var' && t.name !== 'input' && t.name !== 'data' && !scope.has(t.name);
  }

  /** Matches a pattern (a variable, or a ground term) against a value held in `js`. */
  private match(pattern: Term, js: string, scope: Scope, next: Next): string {
    if (this.isUnboundVar(pattern, scope)) {
      const name = this.name();
      const inner = new Map(scope);
      inner.set((pattern as Extract<Term, { type: 'var' }>).name, name);
      return `const ${name} = ${js}; ${next(inner)}`;
    }
    if (pattern.type === 'array' || pattern.type === 'object') outside();
    return this.term(pattern, scope, (p, s) => `if (${this.equality(p, js)}) { ${next(s)} }`);
  }

  private equality(a: string, b: string): string {
    // A scalar literal is equal only to itself (numbers: JS equality is Rego's for doubles).
    if (isScalarLiteral(a) || isScalarLiteral(b)) return `${a} === ${b}`;
    return `H.eq(${a}, ${b})`;
  }

  /** Runs `body` per element of a collection, with the element's key and value. */
  private loop(
    coll: string,
    scope: Scope,
    body: (key: string, value: string, scope: Scope) => string,
  ): string {
    const c = this.name();
    const keys = this.name();
    const values = this.name();
    const i = this.name();
    const key = this.name();
    const value = this.name();
    return `const ${c} = ${coll}; let ${keys} = null, ${values} = ${c};
if (!Array.isArray(${c})) [${keys}, ${values}] = H.entries(${c});
for (let ${i} = 0; ${i} < ${values}.length; ${i}++) {
const ${key} = ${keys} === null ? ${i} : ${keys}[${i}]; const ${value} = ${values}[${i}] ?? null;
${body(key, value, scope)} }`;
  }

  /** Computes a term's values, calling `withValue` inside the code where one is defined. */
  term(t: Term, scope: Scope, withValue: WithValue): string {
    const constant = constantValue(t);
    if (constant !== undefined) return withValue(this.literal(constant), scope);
    switch (t.type) {
      case 'var': {
        if (t.name === 'input') return `if (input !== undefined) { ${withValue('input', scope)} }`;
        const name = scope.get(t.name);
        return name ? withValue(name, scope) : outside();
      }
      case 'ref':
        return this.ref(t, scope, withValue);
      case 'call':
        return this.call(t, scope, withValue);
      case 'array':
      case 'set':
        return this.terms(t.items, scope, (items, s) => {
          const list = `[${items.map(asValue).join(', ')}]`;
          return withValue(t.type === 'array' ? list : `new H.RegoSet(${list})`, s);
        });
      case 'object':
        return this.terms(t.entries.flat(), scope, (flat, s) => {
          const pairs: string[] = [];
          for (let i = 0; i < flat.length; i += 2)
            pairs.push(`[${asValue(flat[i]!)}, ${asValue(flat[i + 1]!)}]`);
          return withValue(`new H.RegoObject([${pairs.join(', ')}])`, s);
        });
      case 'arraycomp':
      case 'setcomp': {
        const out = this.name();
        const body = this.body(t.body, 0, scope, (s) =>
          this.term(t.term, s, (v) => `${out}.push(${asValue(v)});`),
        );
        const value = t.type === 'arraycomp' ? out : `new H.RegoSet(${out})`;
        return `const ${out} = []; { ${body} } ${withValue(value, scope)}`;
      }
      case 'objectcomp': {
        const out = this.name();
        const body = this.body(t.body, 0, scope, (s) =>
          this.term(t.key, s, (k, s2) =>
            this.term(t.value, s2, (v) => {
              const key = this.name();
              const value = this.name();
              const prev = this.name();
              return `const ${key} = ${asValue(k)}, ${value} = ${asValue(v)}, ${prev} = ${out}.get(${key});
if (${prev} !== undefined && !H.eq(${prev}, ${value})) return H.FALLBACK; ${out}.set(${key}, ${value});`;
            }),
          ),
        );
        return `const ${out} = new H.RegoObject(); { ${body} } ${withValue(out, scope)}`;
      }
      default:
        return outside();
    }
  }

  /** The values of several terms (each may enumerate), in order. */
  private terms(
    items: Term[],
    scope: Scope,
    withValues: (js: string[], scope: Scope) => string,
    acc: string[] = [],
  ): string {
    if (acc.length === items.length) return withValues(acc, scope);
    return this.term(items[acc.length]!, scope, (v, s) => this.terms(items, s, withValues, [...acc, v]));
  }

  /** Binds an expression that is always defined to a name. */
  private bind(js: string, scope: Scope, withValue: WithValue): string {
    const name = this.name();
    return `const ${name} = ${js}; ${withValue(name, scope)}`;
  }

  /** Binds a computed expression to a name and continues where it is defined. */
  private defined(js: string, scope: Scope, withValue: WithValue): string {
    const name = this.name();
    return `const ${name} = ${js}; if (${name} !== undefined) { ${withValue(name, scope)} }`;
  }

  private ref(t: Extract<Term, { type: 'ref' }>, scope: Scope, withValue: WithValue): string {
    if (t.head.type === 'var' && t.head.name === 'data') return this.ruleRef(t.path, scope, withValue);
    return this.term(t.head, scope, (head, s) => this.path(head, t.path, 0, s, withValue));
  }

  /** Steps down `path[i…]` from the value in `js`; an unbound variable enumerates the keys. */
  private path(js: string, path: Term[], i: number, scope: Scope, withValue: WithValue): string {
    if (i === path.length) return withValue(js, scope);
    const p = path[i]!;
    if (this.isUnboundVar(p, scope))
      return this.loop(js, scope, (key, value, s) =>
        this.match(p, key, s, (s2) => this.path(value, path, i + 1, s2, withValue)),
      );
    if (p.type === 'scalar' && typeof p.value === 'string') {
      const key = p.value;
      const v = this.name();
      // A property read of its own at each site keeps V8's inline cache monomorphic, as in
      // hand-written code; other objects, keys on Object.prototype and undefined fields take the helper.
      const read =
        key in Object.prototype || key === '__proto__'
          ? `let ${v} = undefined;`
          : `let ${v} = ${js} !== null && typeof ${js} === 'object' && ${js}.constructor === Object ? ${js}[${JSON.stringify(key)}] : undefined;`;
      return `${read} if (${v} === undefined) ${v} = H.field(${js}, ${JSON.stringify(key)});
if (${v} !== undefined) { ${this.path(v, path, i + 1, scope, withValue)} }`;
    }
    return this.term(p, scope, (key, s) =>
      this.defined(`H.get(${js}, ${key})`, s, (v, s2) => this.path(v, path, i + 1, s2, withValue)),
    );
  }

  /** `data.pkg.rule…`: a generated rule set alone at its path, then the rest of the path in its value. */
  private ruleRef(path: Term[], scope: Scope, withValue: WithValue): string {
    let node: RuleNode | undefined = this.plan.root;
    let i = 0;
    for (; i < path.length && !node.ruleSet; i++) {
      const p = path[i]!;
      if (p.type !== 'scalar' || typeof p.value !== 'string') return outside();
      node = node.children.get(p.value);
      if (!node) return outside();
    }
    const rs = node.ruleSet;
    if (!rs || node.children.size > 0) return outside();
    const callee = generate(rs, this.plan);
    if (!callee.fn) return outside();
    this.calleeCost += callee.cost;
    if (callee.usesContext) this.usesContext = true;
    const fn = this.constant(callee.fn);
    const v = this.name();
    return `const ${v} = ${fn}(input, ctx); if (${v} === H.FALLBACK) return H.FALLBACK;
if (${v} !== undefined) { ${this.path(v, path, i, scope, withValue)} }`;
  }

  private call(t: Extract<Term, { type: 'call' }>, scope: Scope, withValue: WithValue): string {
    const builtin = this.plan.builtins[t.name];
    if (!builtin || builtin.all || t.args.length !== builtin.arity) return outside();
    const name = t.name;
    if (name === 'internal.member_2') return this.member(t.args[0]!, t.args[1]!, scope, withValue);
    return this.terms(t.args, scope, (args, s) => {
      if (name === 'equal') return this.bind(this.equality(args[0]!, args[1]!), s, withValue);
      if (name === 'neq') return this.bind(`!(${this.equality(args[0]!, args[1]!)})`, s, withValue);
      const op = RELATIONS[name];
      if (op) return this.bind(`H.cmp(${args[0]}, ${args[1]}) ${op} 0`, s, withValue);
      this.usesContext = true;
      const result = this.name();
      const call = `H.callBuiltin(${this.constant(builtin)}, ${JSON.stringify(name)}, [${args.map(asValue).join(', ')}], ctx)`;
      return `const ${result} = ${call}; if (${result} === H.FALLBACK) return H.FALLBACK;
if (${result} !== undefined) { ${withValue(result, s)} }`;
    });
  }

  /** `x in coll`; in a constant collection of scalars, a JavaScript Set lookup. */
  private member(x: Term, coll: Term, scope: Scope, withValue: WithValue): string {
    const items = constantItems(coll);
    if (items) {
      const set = this.constant(new Set(items));
      return this.term(x, scope, (v, s) => this.bind(`${set}.has(${v})`, s, withValue));
    }
    return this.terms([x, coll], scope, ([v, c], s) => this.bind(`H.member(${v}, ${c})`, s, withValue));
  }
}

/** The scalar items of a constant array or set when they all are: JS equality is Rego's for them. */
function constantItems(t: Term): Value[] | undefined {
  const c = constantValue(t);
  const items = Array.isArray(c) ? c : c instanceof RegoSet ? c.values() : undefined;
  if (!items) return undefined;
  const scalar = (v: Value) =>
    v === null ||
    typeof v === 'string' ||
    typeof v === 'boolean' ||
    (typeof v === 'number' && Number.isSafeInteger(v));
  return items.every(scalar) ? items : undefined;
}

function isScalarLiteral(js: string): boolean {
  return /^(?:"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:e[+-]?\d+)?|true|false|null)$/.test(js);
}

/** The Rego value of a generated expression (literals and constants already are). */
function asValue(js: string): string {
  return isScalarLiteral(js) || js.startsWith('K[') ? js : `H.toValue(${js})`;
}
