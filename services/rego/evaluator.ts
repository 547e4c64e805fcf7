/**
 * Top-down evaluation with backtracking: every evaluation step takes a continuation that is called
 * once per solution and returns true to stop the search (used by `not`, `every` and first-match).
 * Bindings live in one mutable map per rule body and are undone on backtrack.
 */
import type { Body, Expr, Rule, Term } from './ast.ts';
import { type BodyHost, bodyClosures, type ExprClosure } from './body-closures.ts';
import { PRINT } from './builtins/index.ts';
import { type Builtin, type BuiltinContext, newBuiltinContext } from './builtins/types.ts';
import type { CompiledPlan, RuleNode, RuleSet } from './compiler.ts';
import { type DirectResult, directOf, FALLBACK } from './direct.ts';
import {
  baseAt,
  conflict,
  insertAt,
  isCollection,
  lookup,
  markRuleValue,
  mergeInto,
  setPath,
} from './documents.ts';
import { BuiltinError, type Location, RegoError } from './errors.ts';
import { type GeneratedRuleSet, generatedRuleSet } from './generated.ts';
import { candidateRules } from './rule-index.ts';
import { constantValue, hasUnbound, isRoot, refPath } from './terms.ts';
import { equal, formatValue, keyOf, RegoObject, RegoSet, type Value } from './values.ts';

export type Cont = () => boolean;
type ValueCont = (v: Value) => boolean;
export type Env = Map<string, Value>;

/** What a `with` may replace a function by: another function or a constant value. */
type Replacement = { kind: 'function'; name: string } | { kind: 'value'; value: Value };

interface Context {
  input: Value | undefined;
  data: Value;
  overrides: ReadonlyMap<string, Value>;
  functions: ReadonlyMap<string, Replacement>;
  cache: Map<RuleSet, Value | undefined>;
}

/** The context outside any `with`: `with` copies these maps before changing them, never these. */
const NO_OVERRIDES: ReadonlyMap<string, Value> = new Map();
const NO_REPLACEMENTS: ReadonlyMap<string, Replacement> = new Map();

export interface EvalOptions {
  input?: Value;
  data?: Value;
  strictBuiltinErrors?: boolean;
  /** Receives the lines of `print(...)`; without it `print` only succeeds. */
  print?: (line: string) => void;
  /** Shared by the rounds of an asynchronous evaluation (see async-calls.ts). */
  builtinContext?: BuiltinContext;
}

export class Evaluator implements BodyHost {
  private ctx: Context;
  private readonly strict: boolean;
  private readonly print: (line: string) => void;
  private readonly builtinContext: BuiltinContext;

  constructor(
    private readonly plan: CompiledPlan,
    options: EvalOptions,
  ) {
    this.strict = options.strictBuiltinErrors ?? false;
    this.print = options.print ?? (() => {});
    this.builtinContext = options.builtinContext ?? newBuiltinContext();
    this.ctx = {
      input: options.input,
      data: options.data ?? new RegoObject(),
      overrides: NO_OVERRIDES,
      functions: NO_REPLACEMENTS,
      cache: new Map(),
    };
  }

  /** All solutions of a query, as the bindings of `vars`. */
  query(body: Body, vars: string[]): Map<string, Value>[] {
    const env: Env = new Map();
    const results: Map<string, Value>[] = [];
    this.body(body, 0, env, () => {
      results.push(new Map(vars.filter((v) => env.has(v)).map((v) => [v, env.get(v)!])));
      return false;
    });
    return results;
  }

  private body(body: Body, i: number, env: Env, k: Cont): boolean {
    return this.run(bodyClosures(body, this.plan), i, env, k);
  }

  private run(closures: ExprClosure[], i: number, env: Env, k: Cont): boolean {
    if (i === closures.length) return k();
    return closures[i]!(this, env, () => this.run(closures, i + 1, env, k));
  }

  general(e: Expr, env: Env, k: Cont): boolean {
    return this.expr(e, env, k);
  }

  bind(t: Term, v: Value, env: Env, k: Cont): boolean {
    return this.unifyValue(t, v, env, k);
  }

  each(coll: Value, f: (key: Value, value: Value) => boolean): boolean {
    return this.iterate(coll, f);
  }

  /** Runs one expression; `k` is called once per solution and returns true to stop. */
  expr(e: Expr, env: Env, k: Cont): boolean {
    if (e.with.length > 0) return this.withExpr(e, env, k);
    if (e.negated) {
      const found = this.exprPositive(e, env, () => true);
      return found ? false : k();
    }
    return this.exprPositive(e, env, k);
  }

  private exprPositive(e: Expr, env: Env, k: Cont): boolean {
    switch (e.type) {
      case 'term':
        return this.termExpr(e.term, env, k);
      case 'unify':
      case 'assign':
        return this.unify(e.left, e.right, env, k);
      case 'some':
        return k();
      case 'somein':
        return this.term(e.collection, env, (coll) =>
          this.iterate(coll, (key, value) =>
            this.unifyValue(e.value, value, env, () => (e.key ? this.unifyValue(e.key, key, env, k) : k())),
          ),
        );
      case 'every':
        return this.term(e.domain, env, (domain) => {
          if (!isCollection(domain)) return false;
          const ok = !this.iterate(domain, (key, value) => {
            const scope = new Map(env);
            const matched = this.unifyValue(e.value, value, scope, () =>
              e.key
                ? this.unifyValue(e.key, key, scope, () => this.body(e.body, 0, scope, () => true))
                : this.body(e.body, 0, scope, () => true),
            );
            return !matched;
          });
          return ok ? k() : false;
        });
    }
  }

  /** Calls `f(key, value)` for each element of a collection; scalars have none. */
  private iterate(coll: Value, f: (key: Value, value: Value) => boolean): boolean {
    if (Array.isArray(coll)) {
      for (let i = 0; i < coll.length; i++) if (f(i, coll[i]!)) return true;
    } else if (coll instanceof RegoObject) {
      for (const [key, value] of coll.pairs()) if (f(key, value)) return true;
    } else if (coll instanceof RegoSet) {
      for (const v of coll.values()) if (f(v, v)) return true;
    }
    return false;
  }

  private termExpr(t: Term, env: Env, k: Cont): boolean {
    if (t.type === 'call') {
      const arity = this.plan.arityOf(t.name);
      if (arity !== undefined && t.args.length === arity + 1) {
        const out = t.args[arity]!;
        return this.call(t, t.args.slice(0, arity), env, (v) => this.unifyValue(out, v, env, k));
      }
    }
    return this.term(t, env, (v) => (v !== false ? k() : false));
  }

  private withExpr(e: Expr, env: Env, k: Cont): boolean {
    const outer = this.ctx;
    const overrides = new Map(outer.overrides);
    const functions = new Map(outer.functions);
    const next: Context = { ...outer, overrides, functions, cache: new Map() };
    const apply = (i: number, done: Cont): boolean => {
      if (i === e.with.length) return done();
      const w = e.with[i]!;
      const target = w.target;
      // The compiler checked that the target is a ground path.
      const path = refPath(target)!;
      const fnName = path.join('.');
      if ((path[0] !== 'input' && path[0] !== 'data') || this.isFunction(fnName)) {
        const replacement = this.replacementFor(w.value);
        if (replacement) {
          functions.set(fnName, replacement);
          return apply(i + 1, done);
        }
        return this.term(w.value, env, (value) => {
          functions.set(fnName, { kind: 'value', value });
          return apply(i + 1, done);
        });
      }
      return this.term(w.value, env, (value) => {
        if (path[0] === 'input') next.input = setPath(next.input, path.slice(1), value);
        else overrides.set(path.slice(1).join('\u0000'), value);
        return apply(i + 1, done);
      });
    };
    return apply(0, () => {
      this.ctx = next;
      const run = () => {
        const inner = { ...e, with: [] };
        return this.expr(inner, env, () => {
          this.ctx = outer;
          try {
            return k();
          } finally {
            this.ctx = next;
          }
        });
      };
      try {
        return run();
      } finally {
        this.ctx = outer;
      }
    });
  }

  private isFunction(name: string): boolean {
    if (name in this.plan.builtins) return true;
    return this.ruleSetAt(name.split('.'))?.kind === 'function';
  }

  private replacementFor(t: Term): Replacement | undefined {
    const path = refPath(t);
    return path && this.isFunction(path.join('.')) ? { kind: 'function', name: path.join('.') } : undefined;
  }

  private ruleSetAt(path: string[]): RuleSet | undefined {
    if (path[0] !== 'data') return undefined;
    let node: RuleNode | undefined = this.plan.root;
    for (const p of path.slice(1)) node = node?.children.get(p);
    return node?.ruleSet;
  }

  // ---- terms

  term(t: Term, env: Env, k: ValueCont): boolean {
    const direct = directOf(t, this.plan.builtins);
    if (direct) {
      const v = direct(this, env);
      if (v !== FALLBACK) return v === undefined ? false : k(v);
    }
    switch (t.type) {
      case 'scalar':
        return k(t.value);
      case 'var': {
        if (t.name === 'input') return this.ctx.input === undefined ? false : k(this.ctx.input);
        if (t.name === 'data') return this.node(this.plan.root, [], [], 0, env, k);
        const v = env.get(t.name);
        if (v === undefined) throw new RegoError('rego_unsafe_var_error', `var ${t.name} is unsafe`, t.loc);
        return k(v);
      }
      case 'ref':
        return this.ref(t, env, k);
      case 'array':
        return this.terms(t.items, env, (items) => k(items));
      case 'set':
        return this.terms(t.items, env, (items) => k(new RegoSet(items)));
      case 'object':
        return this.terms(t.entries.flat(), env, (flat) => {
          const o = new RegoObject();
          for (let i = 0; i < flat.length; i += 2) o.set(flat[i]!, flat[i + 1]!);
          return k(o);
        });
      case 'call':
        return this.call(t, t.args, env, k);
      case 'arraycomp': {
        const out: Value[] = [];
        this.body(t.body, 0, env, () =>
          this.term(t.term, env, (v) => {
            out.push(v);
            return false;
          }),
        );
        return k(out);
      }
      case 'setcomp': {
        const out = new RegoSet();
        this.body(t.body, 0, env, () =>
          this.term(t.term, env, (v) => {
            out.add(v);
            return false;
          }),
        );
        return k(out);
      }
      case 'objectcomp': {
        const out = new RegoObject();
        this.body(t.body, 0, env, () =>
          this.term(t.key, env, (key) =>
            this.term(t.value, env, (value) => {
              const prev = out.get(key);
              if (prev !== undefined && !equal(prev, value)) throw conflict('object keys must be unique', t);
              out.set(key, value);
              return false;
            }),
          ),
        );
        return k(out);
      }
    }
  }

  private terms(items: Term[], env: Env, k: (vs: Value[]) => boolean, i = 0, acc: Value[] = []): boolean {
    // Constants are appended in a loop: literals with thousands of items must not deepen the stack.
    let j = i;
    for (; j < items.length; j++) {
      const c = constantValue(items[j]!);
      if (c === undefined) break;
      acc.push(c);
    }
    if (j > i) {
      const stop = this.terms(items, env, k, j, acc);
      acc.length -= j - i;
      return stop;
    }
    if (i === items.length) return k([...acc]);
    return this.term(items[i]!, env, (v) => {
      acc.push(v);
      const stop = this.terms(items, env, k, i + 1, acc);
      acc.pop();
      return stop;
    });
  }

  private ref(t: Extract<Term, { type: 'ref' }>, env: Env, k: ValueCont): boolean {
    const head = t.head;
    if (head.type === 'var' && head.name === 'data') return this.node(this.plan.root, [], t.path, 0, env, k);
    return this.term(head, env, (v) => this.walk(v, t.path, 0, env, k));
  }

  /**
   * Looks `path[i…]` up in a value, enumerating unbound variables. In base data (`inData`) a
   * number key also finds the string key it spells, as OPA does for JSON documents.
   */
  private walk(v: Value, path: Term[], i: number, env: Env, k: ValueCont, inData = false): boolean {
    if (i === path.length) return k(v);
    const p = path[i]!;
    if (hasUnbound(p, env)) {
      return this.iterate(v, (key, value) =>
        this.unifyValue(p, key, env, () => this.walk(value, path, i + 1, env, k, inData)),
      );
    }
    return this.term(p, env, (key) => {
      let child = lookup(v, key);
      if (child === undefined && inData && typeof key === 'number' && v instanceof RegoObject) {
        child = v.get(String(key));
      }
      return child === undefined ? false : this.walk(child, path, i + 1, env, k, inData);
    });
  }

  /** Looks `path[i…]` up in the data document at a rule-tree node, base data and rules together. */
  private node(
    node: RuleNode | undefined,
    at: string[],
    path: Term[],
    i: number,
    env: Env,
    k: ValueCont,
  ): boolean {
    const override = this.overrideAt(at);
    if (override !== undefined && at.length > 0) return this.walk(override, path, i, env, k);
    if (node?.ruleSet) {
      const value = node.children.size > 0 ? this.nodeValue(node, at) : this.ruleSetValue(node.ruleSet);
      return value === undefined ? false : this.walk(value, path, i, env, k);
    }
    const base = baseAt(this.ctx.data, at);
    if (!node || node.children.size === 0) {
      // A package without rules is an empty object.
      if (base === undefined) return node ? this.walk(new RegoObject(), path, i, env, k) : false;
      return this.walk(this.withOverridesBelow(base, at), path, i, env, k, true);
    }
    if (i === path.length) {
      const value = this.nodeValue(node, at);
      return value === undefined ? false : k(value);
    }
    const p = path[i]!;
    if (hasUnbound(p, env)) {
      const keys = new Set<string>(node.children.keys());
      if (base instanceof RegoObject)
        for (const key of base.keys()) if (typeof key === 'string') keys.add(key);
      for (const key of keys)
        if (this.unifyValue(p, key, env, () => this.nodeStep(node, at, base, key, path, i, env, k)))
          return true;
      return false;
    }
    const constant = constantValue(p);
    if (constant !== undefined) return this.nodeStep(node, at, base, constant, path, i, env, k);
    return this.term(p, env, (raw) => this.nodeStep(node, at, base, raw, path, i, env, k));
  }

  /** One step down the rule tree from `node` by the key `raw` (path[i]'s value). */
  private nodeStep(
    node: RuleNode,
    at: string[],
    base: Value | undefined,
    raw: Value,
    path: Term[],
    i: number,
    env: Env,
    k: ValueCont,
  ): boolean {
    const key = typeof raw === 'number' && Number.isInteger(raw) ? String(raw) : raw;
    if (typeof key !== 'string') {
      const b = base === undefined ? undefined : lookup(base, key);
      return b === undefined ? false : this.walk(b, path, i + 1, env, k);
    }
    return this.node(node.children.get(key), [...at, key], path, i + 1, env, k);
  }

  /** The object at a node: base data, the node's own rules' object, and every child merged. */
  private nodeValue(node: RuleNode, at: string[]): Value | undefined {
    const base = baseAt(this.ctx.data, at);
    const rs = node.ruleSet;
    const own = rs && rs.kind !== 'function' ? this.ruleSetValue(rs) : undefined;
    if (own !== undefined && !(own instanceof RegoObject)) return node.children.size === 0 ? own : undefined;
    const out = base instanceof RegoObject ? new RegoObject(base.pairs()) : new RegoObject();
    if (own) for (const [key, value] of own.pairs()) mergeInto(out, key, value, rs);
    for (const [name, child] of node.children) {
      const childAt = [...at, name];
      const override = this.overrideAt(childAt);
      let value: Value | undefined;
      if (override !== undefined) value = override;
      else if (child.ruleSet && child.children.size === 0)
        value = child.ruleSet.kind === 'function' ? undefined : this.ruleSetValue(child.ruleSet);
      else value = this.nodeValue(child, childAt);
      if (value !== undefined) mergeInto(out, name, value, child.ruleSet ?? rs);
    }
    return this.withOverridesBelow(out, at);
  }

  /** The `with data.…` value replacing the document at a path (most evaluations have none). */
  private overrideAt(at: string[]): Value | undefined {
    return this.ctx.overrides.size === 0 ? undefined : this.ctx.overrides.get(at.join('\u0000'));
  }

  private withOverridesBelow(base: Value, at: string[]): Value {
    if (this.ctx.overrides.size === 0) return base;
    let out = base;
    const prefix = at.length === 0 ? '' : `${at.join('\u0000')}\u0000`;
    for (const [key, value] of this.ctx.overrides) {
      if (at.length > 0 && !key.startsWith(prefix)) continue;
      const rest = key.slice(prefix.length).split('\u0000');
      out = setPath(out, rest, value)!;
    }
    return out;
  }

  // ---- rules

  private ruleSetValue(rs: RuleSet): Value | undefined {
    const cache = this.ctx.cache;
    if (cache.has(rs)) return cache.get(rs);
    if (rs.kind === 'function') return undefined;
    const value = this.evalRuleSet(rs);
    cache.set(rs, value);
    return value;
  }

  private evalRuleSet(rs: RuleSet): Value | undefined {
    const fn = this.generated(rs);
    if (fn) {
      const v = fn(rawInput(this.ctx.input), this.builtinContext);
      if (v !== FALLBACK) return v === undefined ? undefined : markRuleValue(v);
    }
    switch (rs.kind) {
      case 'general':
        return this.evalGeneral(rs);
      case 'set': {
        const out = new RegoSet();
        for (const rule of this.candidates(rs)) {
          const env: Env = new Map();
          this.body(rule.body, 0, env, () =>
            this.term(rule.head.key!, env, (v) => {
              out.add(v);
              return false;
            }),
          );
        }
        return out;
      }
      case 'object': {
        const out = new RegoObject();
        for (const rule of this.candidates(rs)) {
          const env: Env = new Map();
          this.body(rule.body, 0, env, () =>
            this.term(rule.head.key!, env, (key) =>
              this.headValue(rule.head.value, env, (value) => {
                const prev = out.get(key);
                if (prev !== undefined && !equal(prev, value))
                  throw conflict('object keys must be unique', rule);
                out.set(key, markRuleValue(value));
                return false;
              }),
            ),
          );
        }
        return out;
      }
      default: {
        let value: Value | undefined;
        for (const rule of this.candidates(rs)) {
          this.ruleChain(rule, new Map(), (v) => {
            if (value !== undefined && !equal(value, v))
              throw conflict(`rule ${rs.path.join('.')} produced conflicting values`, rule);
            value = v;
            return false;
          });
        }
        if (value !== undefined) return markRuleValue(value);
        if (rs.defaultRule) {
          this.term(rs.defaultRule.head.value!, new Map(), (v) => {
            value = v;
            return true;
          });
          return value;
        }
        return undefined;
      }
    }
  }

  /** The generated function of a rule set, unless `with` replaced data or functions here. */
  private generated(rs: RuleSet): GeneratedRuleSet | null {
    return this.ctx.overrides.size === 0 && this.ctx.functions.size === 0
      ? generatedRuleSet(rs, this.plan)
      : null;
  }

  /** The rules that can hold: all, or those the rule index keeps (unless `with` replaced `==`). */
  private candidates(rs: RuleSet): Rule[] {
    return rs.index && this.ctx.functions.size === 0 ? candidateRules(rs.index, this.ctx.input) : rs.rules;
  }

  /** A general ref-head rule set: an object nesting each solution's ref values down to its leaf. */
  private evalGeneral(rs: RuleSet): Value {
    const out = new RegoObject();
    for (const rule of rs.rules) {
      const env: Env = new Map();
      const tail = rule.head.tail!;
      this.body(rule.body, 0, env, () =>
        this.terms(tail, env, (keys) => {
          const leaf = rule.head.key
            ? (k: ValueCont) => this.term(rule.head.key!, env, k)
            : (k: ValueCont) => this.headValue(rule.head.value, env, k);
          return leaf((value) => {
            insertAt(out, keys, value, rule.head.key !== undefined, rule);
            return false;
          });
        }),
      );
    }
    return out;
  }

  private headValue(t: Term | undefined, env: Env, k: ValueCont): boolean {
    return t ? this.term(t, env, k) : k(true);
  }

  /** Values of a rule with its `else` branches: the first branch with a solution decides. */
  private ruleChain(rule: Rule, env: Env, k: ValueCont): boolean {
    let matched = false;
    const stop = this.body(rule.body, 0, env, () => {
      matched = true;
      return this.headValue(rule.head.value, env, k);
    });
    if (matched || stop) return stop;
    let branch = rule.else;
    while (branch) {
      let hit = false;
      const b = branch;
      const r = this.body(b.body, 0, env, () => {
        hit = true;
        return this.headValue(b.value, env, k);
      });
      if (hit || r) return r;
      branch = branch.else;
    }
    return false;
  }

  // ---- calls

  private call(callTerm: Extract<Term, { type: 'call' }>, args: Term[], env: Env, k: ValueCont): boolean {
    const name = callTerm.name;
    if (name === PRINT) return this.printCall(args, env, k);
    const replaced = this.ctx.functions.get(name);
    if (replaced?.kind === 'value') return this.terms(args, env, () => k(replaced.value));
    const target = replaced?.kind === 'function' ? replaced.name : name;
    return this.terms(args, env, (values) => this.callValues(target, values, callTerm.loc, k));
  }

  /** OPA's `print`: every argument in `%v` form, `<undefined>` for an undefined one; always true. */
  private printCall(args: Term[], env: Env, k: ValueCont): boolean {
    const parts = args.map((a) => {
      let text = '<undefined>';
      this.term(a, env, (v) => {
        text = typeof v === 'string' ? v : formatValue(v);
        return true;
      });
      return text;
    });
    this.print(parts.join(' '));
    return k(true);
  }

  currentInput(): Value | undefined {
    return this.ctx.input;
  }

  ruleDocument(path: Value[]): DirectResult {
    if (this.ctx.overrides.size > 0) return FALLBACK;
    let node: RuleNode = this.plan.root;
    for (let i = 0; i < path.length; i++) {
      const key = path[i]!;
      const child = typeof key === 'string' ? node.children.get(key) : undefined;
      if (!child) return FALLBACK;
      node = child;
      const rs = node.ruleSet;
      if (!rs) continue;
      // Only a rule set that alone defines its document: no rules below it, no base data merged.
      if (node.children.size > 0 || rs.kind === 'function') return FALLBACK;
      let v = this.ruleSetValue(rs);
      for (let j = i + 1; j < path.length && v !== undefined; j++) v = lookup(v, path[j]!);
      return v;
    }
    return FALLBACK;
  }

  callBuiltin(name: string, builtin: Builtin, args: Value[], loc: Location): DirectResult {
    if (this.ctx.functions.size > 0) return FALLBACK;
    try {
      return builtin.fn(args, name, this.builtinContext);
    } catch (err) {
      if (!(err instanceof BuiltinError)) throw err;
      if (!this.strict) return undefined;
      throw new RegoError(err.code, err.detail, loc);
    }
  }

  private callValues(name: string, values: Value[], loc: Location, k: ValueCont): boolean {
    if (name.startsWith('data.')) {
      const rs = this.ruleSetAt(name.split('.'));
      if (rs?.kind !== 'function') return false;
      return this.callFunction(rs, values, k);
    }
    const builtin = this.plan.builtins[name] as Builtin | undefined;
    if (!builtin) throw new RegoError('rego_type_error', `undefined function ${name}`);
    let results: Value[];
    try {
      if (builtin.all) results = builtin.all(values, name);
      else {
        const result = builtin.fn(values, name, this.builtinContext);
        results = result === undefined ? [] : [result];
      }
    } catch (err) {
      if (!(err instanceof BuiltinError)) throw err;
      if (!this.strict) return false;
      throw new RegoError(err.code, err.detail, loc);
    }
    for (const r of results) if (k(r)) return true;
    return false;
  }

  private callFunction(rs: RuleSet, values: Value[], k: ValueCont): boolean {
    let output: Value | undefined;
    for (const rule of rs.rules) {
      const env: Env = new Map();
      const args = rule.head.args!;
      const bindArgs = (i: number, done: Cont): boolean =>
        i === args.length ? done() : this.unifyValue(args[i]!, values[i]!, env, () => bindArgs(i + 1, done));
      bindArgs(0, () =>
        this.ruleChain(rule, env, (v) => {
          if (output !== undefined && !equal(output, v))
            throw conflict('functions must not produce multiple outputs for same inputs', rule);
          output = v;
          return false;
        }),
      );
    }
    if (output === undefined && rs.defaultRule) {
      return this.term(rs.defaultRule.head.value!, new Map(), k);
    }
    return output === undefined ? false : k(output);
  }

  // ---- unification

  private unify(a: Term, b: Term, env: Env, k: Cont): boolean {
    if (a.type === 'var' && !isRoot(a) && !env.has(a.name))
      return this.term(b, env, (v) => this.unifyValue(a, v, env, k));
    if (b.type === 'var' && !isRoot(b) && !env.has(b.name))
      return this.term(a, env, (v) => this.unifyValue(b, v, env, k));
    if (a.type === 'array' && b.type === 'array') {
      if (a.items.length !== b.items.length) return false;
      const step = (i: number): boolean =>
        i === a.items.length ? k() : this.unify(a.items[i]!, b.items[i]!, env, () => step(i + 1));
      return step(0);
    }
    if (a.type === 'object' && b.type === 'object' && hasUnbound(a, env) && hasUnbound(b, env)) {
      return this.unifyObjects(a, b, env, k);
    }
    if (hasUnbound(a, env)) return this.term(b, env, (v) => this.unifyValue(a, v, env, k));
    return this.term(a, env, (v) => this.unifyValue(b, v, env, k));
  }

  /** Two object literals with variables on both sides: same keys, values unified pairwise. */
  private unifyObjects(
    a: Extract<Term, { type: 'object' }>,
    b: Extract<Term, { type: 'object' }>,
    env: Env,
    k: Cont,
  ): boolean {
    if (a.entries.length !== b.entries.length) return false;
    const keyed = (t: typeof a): Map<string, Term> | undefined => {
      const out = new Map<string, Term>();
      for (const [kt, vt] of t.entries) {
        const key = constantValue(kt);
        if (key === undefined) return undefined;
        out.set(keyOf(key), vt);
      }
      return out;
    };
    const left = keyed(a);
    const right = keyed(b);
    if (!left || !right) return this.term(b, env, (v) => this.unifyValue(a, v, env, k));
    const pairs: [Term, Term][] = [];
    for (const [key, lt] of left) {
      const rt = right.get(key);
      if (!rt) return false;
      pairs.push([lt, rt]);
    }
    const step = (i: number): boolean =>
      i === pairs.length ? k() : this.unify(pairs[i]![0], pairs[i]![1], env, () => step(i + 1));
    return step(0);
  }

  /** Matches a term against a value, binding the term's unbound variables. */
  private unifyValue(t: Term, v: Value, env: Env, k: Cont): boolean {
    if (t.type === 'var' && !isRoot(t)) {
      const bound = env.get(t.name);
      if (bound !== undefined) return equal(bound, v) ? k() : false;
      env.set(t.name, v);
      const stop = k();
      env.delete(t.name);
      return stop;
    }
    if (t.type === 'array' && hasUnbound(t, env)) {
      if (!Array.isArray(v) || v.length !== t.items.length) return false;
      const step = (i: number): boolean =>
        i === v.length ? k() : this.unifyValue(t.items[i]!, v[i]!, env, () => step(i + 1));
      return step(0);
    }
    if (t.type === 'object' && hasUnbound(t, env)) {
      if (!(v instanceof RegoObject) || v.size !== t.entries.length) return false;
      const step = (i: number): boolean => {
        if (i === t.entries.length) return k();
        const [kt, vt] = t.entries[i]!;
        return this.term(kt, env, (key) => {
          const child = v.get(key);
          return child === undefined ? false : this.unifyValue(vt, child, env, () => step(i + 1));
        });
      };
      return step(0);
    }
    return this.term(t, env, (tv) => (equal(tv, v) ? k() : false));
  }
}

/** The JSON behind a lazily converted input, which generated code reads in place. */
export function rawInput(input: Value | undefined): unknown {
  return input instanceof RegoObject ? (input.sourceJSON() ?? input) : input;
}
