/**
 * Partial evaluation: evaluates a query with some documents unknown (by default
 * `data.resources`) and returns the residual queries, the conditions on the unknown documents
 * under which the query holds, one body per alternative (an OR of ANDs), as OPA and Rönd do.
 *
 * Known parts are evaluated by the ordinary evaluator; an expression that mentions an unknown
 * is kept with its known operands replaced by their values; a variable assigned an unknown ref
 * (`r := data.resources[_]`) stands for that ref; rules whose bodies depend on unknowns are
 * inlined, each definition an alternative.
 */
import type { Body, Expr, Term } from './ast.ts';
import type { CompiledPlan, RuleSet } from './compiler.ts';
import { RegoError } from './errors.ts';
import type { Cont, Env, Evaluator } from './evaluator.ts';
import { allRuleSets } from './recursion.ts';
import { exprRefs, ruleDataRefs, termRefs } from './refs.ts';

export class PartialEvaluator {
  private readonly dependsOnUnknown = new Map<RuleSet, boolean>();
  private wildcards = 0;

  constructor(
    private readonly plan: CompiledPlan,
    private readonly evaluator: Evaluator,
    /** Unknown document paths below `data`, e.g. `[["resources"]]`. */
    private readonly unknowns: string[][],
  ) {}

  residuals(query: Body): Body[] {
    const out: Body[] = [];
    const residual: Expr[] = [];
    this.body(query, 0, new Map(), new Map(), residual, () => {
      out.push([...residual]);
      return false;
    });
    return out;
  }

  private body(
    body: Body,
    i: number,
    env: Env,
    aliases: Map<string, Term>,
    residual: Expr[],
    k: Cont,
  ): boolean {
    if (i === body.length) return k();
    const next = () => this.body(body, i + 1, env, aliases, residual, k);
    const e = substituteExpr(body[i]!, aliases);
    const fn = this.functionToInline(e);
    if (fn) return this.inlineCall(fn, e as CallExpr, env, residual, next);
    if (this.mentionsUnknown(e)) return this.unknownExpr(e, env, aliases, residual, next);
    const inlined = this.ruleToInline(e);
    if (inlined) {
      if (e.negated) throw unsupported(e, 'negation of a rule that depends on unknowns');
      for (const rule of inlined.rules) {
        if (this.body(rule.body, 0, new Map(), new Map(), residual, next)) return true;
      }
      return false;
    }
    return this.evaluator.expr(e, env, next);
  }

  /**
   * A function call as a test (`is_owner(r)`) whose arguments or body depend on unknowns: each
   * definition is an alternative, its parameters bound to the known arguments' values and
   * standing for the unknown ones.
   */
  private inlineCall(rs: RuleSet, e: CallExpr, env: Env, residual: Expr[], k: Cont): boolean {
    const args = e.term.args;
    for (const rule of rs.rules) {
      const params = rule.head.args!;
      const inner: Env = new Map();
      const aliases = new Map<string, Term>();
      const bind = (i: number): boolean => {
        if (i === params.length) return this.body(rule.body, 0, inner, aliases, residual, k);
        const param = params[i]!;
        const arg = args[i]!;
        if (!this.termMentionsUnknown(arg))
          return this.evaluator.term(arg, env, (v) =>
            this.evaluator.bind(param, v, inner, () => bind(i + 1)),
          );
        if (param.type !== 'var') throw unsupported(e, 'a function parameter pattern over unknowns');
        aliases.set(param.name, substituteBound(arg, env));
        const stop = bind(i + 1);
        aliases.delete(param.name);
        return stop;
      };
      if (bind(0)) return true;
    }
    return false;
  }

  /** A call of a boolean function (tested, not assigned) over unknowns, to inline. */
  private functionToInline(e: Expr): RuleSet | undefined {
    if (e.type !== 'term' || e.term.type !== 'call' || !e.term.name.startsWith('data.')) return undefined;
    const path = e.term.name.split('.').slice(1);
    const rs = this.ruleSetAt(path.map((value) => ({ type: 'scalar', value, loc: e.loc }) as Term));
    if (rs?.kind !== 'function' || e.term.args.length !== rs.arity) return undefined;
    const overUnknowns =
      e.term.args.some((a) => this.termMentionsUnknown(a)) || this.ruleSetDependsOnUnknown(rs);
    if (!overUnknowns) return undefined;
    if (e.negated) throw unsupported(e, 'negation of a function over unknowns');
    if (e.with.length > 0) throw unsupported(e, '`with` on a function over unknowns');
    if (rs.defaultRule || rs.rules.some((r) => r.else || !isTrue(r.head.value)))
      throw unsupported(e, 'a function over unknowns with a non-boolean value, a default or else');
    return rs;
  }

  private unknownExpr(e: Expr, env: Env, aliases: Map<string, Term>, residual: Expr[], k: Cont): boolean {
    if ((e.type === 'assign' || e.type === 'unify') && !e.negated && e.with.length === 0) {
      const [name, ref] =
        e.left.type === 'var' && !env.has(e.left.name)
          ? [e.left.name, e.right]
          : e.right.type === 'var' && !env.has(e.right.name)
            ? [e.right.name, e.left]
            : [];
      if (name && ref && this.isUnknownRef(ref)) {
        aliases.set(name, ref);
        const stop = k();
        aliases.delete(name);
        return stop;
      }
    }
    if (
      e.type === 'somein' &&
      !e.negated &&
      !e.key &&
      e.value.type === 'var' &&
      this.isUnknownRef(e.collection)
    ) {
      // `some r in data.resources` makes `r` stand for `data.resources[_]`.
      const collection = e.collection as Extract<Term, { type: 'ref' }>;
      const index: Term = { type: 'var', name: `_$in${this.wildcards++}`, loc: e.loc };
      aliases.set(e.value.name, { ...collection, path: [...collection.path, index] });
      const stop = k();
      aliases.delete(e.value.name);
      return stop;
    }
    return this.ground(e, env, (kept) => {
      residual.push(kept);
      const stop = k();
      residual.pop();
      return stop;
    });
  }

  /** The expression with every known operand replaced by its value (once per value). */
  private ground(e: Expr, env: Env, k: (e: Expr) => boolean): boolean {
    const terms = exprTerms(e);
    const values: Term[] = [];
    const step = (i: number): boolean => {
      if (i === terms.length) return k(rebuild(e, [...values]));
      const t = terms[i]!;
      if (this.termMentionsUnknown(t)) {
        values.push(substituteBound(t, env));
        const stop = step(i + 1);
        values.pop();
        return stop;
      }
      return this.evaluator.term(t, env, (value) => {
        values.push({ type: 'scalar', value, loc: t.loc });
        const stop = step(i + 1);
        values.pop();
        return stop;
      });
    };
    return step(0);
  }

  /** A complete rule referenced by a term expression whose value depends on unknowns. */
  private ruleToInline(e: Expr): RuleSet | undefined {
    if (
      e.type !== 'term' ||
      e.term.type !== 'ref' ||
      e.term.head.type !== 'var' ||
      e.term.head.name !== 'data'
    )
      return undefined;
    const rs = this.ruleSetAt(e.term.path);
    if (rs?.kind !== 'complete' || !this.ruleSetDependsOnUnknown(rs)) return undefined;
    if (rs.rules.some((r) => !isTrue(r.head.value))) {
      throw unsupported(e, 'a rule with a non-boolean value that depends on unknowns');
    }
    return rs;
  }

  private ruleSetAt(path: Term[]): RuleSet | undefined {
    let node = this.plan.root;
    for (const p of path) {
      if (p.type !== 'scalar' || typeof p.value !== 'string') return undefined;
      const child = node.children.get(p.value);
      if (!child) return undefined;
      node = child;
    }
    return node.ruleSet;
  }

  private ruleSetDependsOnUnknown(rs: RuleSet): boolean {
    const known = this.dependsOnUnknown.get(rs);
    if (known !== undefined) return known;
    this.dependsOnUnknown.set(rs, false);
    let depends = false;
    for (const rule of rs.rules) {
      ruleDataRefs(rule, (path) => {
        if (depends) return;
        if (this.isUnknownPath(path)) depends = true;
        else
          for (const dep of this.ruleSetsUnder(path)) if (this.ruleSetDependsOnUnknown(dep)) depends = true;
      });
    }
    this.dependsOnUnknown.set(rs, depends);
    return depends;
  }

  private ruleSetsUnder(path: string[]): RuleSet[] {
    let node = this.plan.root;
    for (const part of path) {
      if (node.ruleSet) break;
      const child = node.children.get(part);
      if (!child) return [];
      node = child;
    }
    return allRuleSets(node);
  }

  private isUnknownPath(path: string[]): boolean {
    return this.unknowns.some((u) => u.every((part, i) => path[i] === part) && path.length >= u.length);
  }

  private isUnknownRef(t: Term): boolean {
    if (t.type !== 'ref' || t.head.type !== 'var' || t.head.name !== 'data') return false;
    const ground: string[] = [];
    for (const p of t.path) {
      if (p.type !== 'scalar' || typeof p.value !== 'string') break;
      ground.push(p.value);
    }
    return this.isUnknownPath(ground);
  }

  private mentionsUnknown(e: Expr): boolean {
    let found = false;
    exprRefs(e, (path) => {
      if (this.isUnknownPath(path)) found = true;
    });
    return found;
  }

  private termMentionsUnknown(t: Term): boolean {
    let found = false;
    termRefs(t, (path) => {
      if (this.isUnknownPath(path)) found = true;
    });
    return found;
  }
}

type CallExpr = Expr & { type: 'term'; term: Extract<Term, { type: 'call' }> };

/** A rule head value that is absent or `true`: the rule is a condition. */
function isTrue(value: Term | undefined): boolean {
  return !value || (value.type === 'scalar' && value.value === true);
}

function unsupported(e: Expr, what: string): RegoError {
  return new RegoError('rego_compile_error', `partial evaluation does not support ${what}`, e.loc);
}

/** The operand terms of an expression, in order. */
function exprTerms(e: Expr): Term[] {
  switch (e.type) {
    case 'term':
      return e.term.type === 'call' ? e.term.args : [e.term];
    case 'unify':
    case 'assign':
      return [e.left, e.right];
    case 'somein':
      return [...(e.key ? [e.key] : []), e.value, e.collection];
    default:
      throw unsupported(e, `${e.type} over unknowns`);
  }
}

function rebuild(e: Expr, terms: Term[]): Expr {
  switch (e.type) {
    case 'term':
      return e.term.type === 'call' ? { ...e, term: { ...e.term, args: terms } } : { ...e, term: terms[0]! };
    case 'unify':
    case 'assign':
      return { ...e, type: 'unify', left: terms[0]!, right: terms[1]! };
    case 'somein':
      return e.key
        ? { ...e, key: terms[0]!, value: terms[1]!, collection: terms[2]! }
        : { ...e, value: terms[0]!, collection: terms[1]! };
    default:
      return e;
  }
}

/** Replaces variables aliased to unknown refs by those refs. */
function substituteExpr(e: Expr, aliases: Map<string, Term>): Expr {
  if (aliases.size === 0) return e;
  const sub = (t: Term): Term => substitute(t, aliases);
  switch (e.type) {
    case 'term':
      return { ...e, term: sub(e.term) };
    case 'unify':
    case 'assign':
      return { ...e, left: sub(e.left), right: sub(e.right) };
    case 'somein':
      return { ...e, key: e.key && sub(e.key), value: sub(e.value), collection: sub(e.collection) };
    default:
      return e;
  }
}

function substitute(t: Term, aliases: Map<string, Term>): Term {
  switch (t.type) {
    case 'var':
      return aliases.get(t.name) ?? t;
    case 'ref': {
      const head = substitute(t.head, aliases);
      const path = t.path.map((p) => substitute(p, aliases));
      return head.type === 'ref'
        ? { ...t, head: head.head, path: [...head.path, ...path] }
        : { ...t, head, path };
    }
    case 'call':
      return { ...t, args: t.args.map((a) => substitute(a, aliases)) };
    case 'array':
    case 'set':
      return { ...t, items: t.items.map((i) => substitute(i, aliases)) };
    case 'object':
      return { ...t, entries: t.entries.map(([k, v]) => [substitute(k, aliases), substitute(v, aliases)]) };
    default:
      return t;
  }
}

/** Replaces bound variables (e.g. ref keys) by their values inside a term that stays residual. */
function substituteBound(t: Term, env: Env): Term {
  if (t.type === 'var') {
    const v = env.get(t.name);
    return v === undefined ? t : { type: 'scalar', value: v, loc: t.loc };
  }
  if (t.type === 'ref') return { ...t, path: t.path.map((p) => substituteBound(p, env)) };
  return t;
}
