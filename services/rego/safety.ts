/**
 * OPA's safety check: orders the expressions of a body so that every variable is bound before
 * an expression needs its value, and reports `rego_unsafe_var_error` when no order exists.
 */
import type { Body, Expr, Term } from './ast.ts';
import { type Location, RegoError } from './errors.ts';
import { collectVars } from './terms.ts';

const ROOTS = new Set(['data', 'input']);

/** Number of arguments of a function name, to tell an output argument (`count(x, n)`) apart. */
export type ArityOf = (name: string) => number | undefined;

interface Shape {
  expr: Expr;
  /** Alternatives: the expression is ready when every var of one alternative is bound. */
  needs: Set<string>[];
  gives: Set<string>;
}

/**
 * @param bound vars bound before the body (function arguments, `every` variables)
 * @param headVars vars the rule head needs after the body
 * @param lenient nested bodies (comprehensions, `every`) whose outer vars are bound at run time
 */
export function orderBody(
  body: Body,
  bound: Set<string>,
  headVars: Set<string>,
  loc: Location | undefined,
  arityOf: ArityOf,
  lenient = false,
): Body {
  const shallow = body.map((e) => shallowVars(e));
  // A var declared by `:=` is visible only after its declaration: closures before it have their own.
  const declaredAt = new Map<string, number>();
  body.forEach((e, j) => {
    if (e.type === 'assign')
      for (const v of patternVarsOf(e.left)) if (!declaredAt.has(v)) declaredAt.set(v, j);
  });
  const shapes: Shape[] = body.map((expr, i) => {
    const others = new Set<string>(bound);
    for (const v of headVars) if ((declaredAt.get(v) ?? -1) <= i) others.add(v);
    shallow.forEach((d, j) => {
      if (j === i) return;
      for (const v of d) if ((declaredAt.get(v) ?? -1) <= i || bound.has(v)) others.add(v);
    });
    return shape(expr, others, arityOf);
  });
  const known = new Set(bound);
  const ordered: Body = [];
  const remaining = [...shapes];
  while (remaining.length > 0) {
    const idx = remaining.findIndex((s) => s.needs.some((alt) => [...alt].every((v) => known.has(v))));
    if (idx < 0) {
      if (lenient) {
        ordered.push(...remaining.map((s) => s.expr));
        return ordered;
      }
      const s = remaining[0]!;
      const missing = [...s.needs[0]!].find((v) => !known.has(v))!;
      throw unsafe(missing, s.expr.loc);
    }
    const [s] = remaining.splice(idx, 1);
    ordered.push(s!.expr);
    for (const v of s!.gives) known.add(v);
  }
  if (!lenient) {
    for (const v of headVars) if (!known.has(v)) throw unsafe(v, loc);
  }
  return ordered;
}

function unsafe(name: string, loc: Location | undefined): RegoError {
  const shown = name.startsWith('_$') ? '_' : name.replace(/\$\d+$/, '');
  return new RegoError('rego_unsafe_var_error', `var ${shown} is unsafe`, loc);
}

function shape(e: Expr, others: Set<string>, arityOf: ArityOf): Shape {
  const gives = new Set<string>();
  const withNeeds = new Set<string>();
  for (const w of e.with) needsTerm(w.value, others, withNeeds);
  const alt = (...sets: Set<string>[]) => new Set([...withNeeds, ...sets.flatMap((s) => [...s])]);
  if (e.negated) {
    const d = new Set([...deepVars(e)].filter((v) => others.has(v)));
    return { expr: e, needs: [alt(d)], gives };
  }
  switch (e.type) {
    case 'some':
      return { expr: e, needs: [alt()], gives };
    case 'term': {
      const t = e.term;
      const needs = new Set<string>();
      if (t.type === 'call' && arityOf(t.name) === t.args.length - 1) {
        for (const a of t.args.slice(0, -1)) {
          needsTerm(a, others, needs);
          givesTerm(a, gives);
        }
        const last = t.args[t.args.length - 1]!;
        patternNeeds(last, others, needs);
        patternGives(last, gives);
      } else {
        needsTerm(t, others, needs);
        givesTerm(t, gives);
      }
      return { expr: e, needs: [alt(needs)], gives };
    }
    case 'unify': {
      const a = new Set<string>();
      patternNeeds(e.left, others, a);
      needsTerm(e.right, others, a);
      const b = new Set<string>();
      patternNeeds(e.right, others, b);
      needsTerm(e.left, others, b);
      patternGives(e.left, gives);
      patternGives(e.right, gives);
      const needs = [alt(a), alt(b)];
      if (isComposite(e.left) && isComposite(e.right)) {
        // Two literals unify element-wise: only their non-variable parts need values.
        const both = new Set<string>();
        patternNeeds(e.left, others, both);
        patternNeeds(e.right, others, both);
        needs.push(alt(both));
      }
      return { expr: e, needs, gives };
    }
    case 'assign': {
      const needs = new Set<string>();
      patternNeeds(e.left, others, needs);
      needsTerm(e.right, others, needs);
      patternGives(e.left, gives);
      givesTerm(e.right, gives);
      return { expr: e, needs: [alt(needs)], gives };
    }
    case 'somein': {
      const needs = new Set<string>();
      needsTerm(e.collection, others, needs);
      givesTerm(e.collection, gives);
      for (const t of [e.key, e.value]) {
        if (!t) continue;
        patternNeeds(t, others, needs);
        patternGives(t, gives);
      }
      return { expr: e, needs: [alt(needs)], gives };
    }
    case 'every': {
      const needs = new Set<string>();
      needsTerm(e.domain, others, needs);
      const locals = new Set<string>();
      if (e.key) collectAll(e.key, locals);
      collectAll(e.value, locals);
      for (const x of e.body) for (const v of deepVars(x)) if (others.has(v) && !locals.has(v)) needs.add(v);
      return { expr: e, needs: [alt(needs)], gives };
    }
  }
}

/** The direct sub-terms of an array, set, object (keys and values) or call; null for other terms. */
function parts(t: Term): Term[] | null {
  switch (t.type) {
    case 'array':
    case 'set':
      return t.items;
    case 'object':
      return t.entries.flat();
    case 'call':
      return t.args;
    default:
      return null;
  }
}

function needsTerm(t: Term, others: Set<string>, into: Set<string>): void {
  switch (t.type) {
    case 'scalar':
      return;
    case 'var':
      if (!ROOTS.has(t.name)) into.add(t.name);
      return;
    case 'ref':
      needsTerm(t.head, others, into);
      for (const p of t.path) if (p.type !== 'var') patternNeeds(p, others, into);
      return;
    default: {
      const children = parts(t);
      if (children) for (const c of children) needsTerm(c, others, into);
      else for (const v of termDeepVars(t)) if (others.has(v)) into.add(v);
    }
  }
}

function givesTerm(t: Term, into: Set<string>): void {
  if (t.type === 'ref') {
    givesTerm(t.head, into);
    for (const p of t.path) patternGives(p, into);
  } else for (const c of parts(t) ?? []) givesTerm(c, into);
}

function patternNeeds(t: Term, others: Set<string>, into: Set<string>): void {
  if (t.type === 'var') return;
  if (t.type === 'array') for (const i of t.items) patternNeeds(i, others, into);
  else if (t.type === 'object')
    for (const [k, v] of t.entries) {
      needsTerm(k, others, into);
      patternNeeds(v, others, into);
    }
  else needsTerm(t, others, into);
}

function isComposite(t: Term): boolean {
  return t.type === 'array' || t.type === 'object';
}

function patternVarsOf(t: Term): Set<string> {
  const out = new Set<string>();
  patternGives(t, out);
  return out;
}

function patternGives(t: Term, into: Set<string>): void {
  if (t.type === 'var') {
    if (!ROOTS.has(t.name)) into.add(t.name);
  } else if (t.type === 'array') for (const i of t.items) patternGives(i, into);
  else if (t.type === 'object') for (const [, v] of t.entries) patternGives(v, into);
  else givesTerm(t, into);
}

function collectAll(t: Term, into: Set<string>): void {
  for (const v of termDeepVars(t)) into.add(v);
}

/** Variables of an expression outside its closures (comprehensions, `every`, negation). */
function shallowVars(e: Expr): Set<string> {
  if (e.negated) return new Set();
  const out = new Set<string>();
  for (const t of operands(e, false)) collectVars(t, out);
  return out;
}

/**
 * The terms of an expression outside its nested bodies, in order: `with` values, then its
 * operands; of an `every`, its domain, and before it its key and value when `everyVars`.
 */
function operands(e: Expr, everyVars: boolean): Term[] {
  const out = e.with.map((w) => w.value);
  switch (e.type) {
    case 'term':
      out.push(e.term);
      break;
    case 'unify':
    case 'assign':
      out.push(e.left, e.right);
      break;
    case 'somein':
      if (e.key) out.push(e.key);
      out.push(e.value, e.collection);
      break;
    case 'every':
      if (everyVars) {
        if (e.key) out.push(e.key);
        out.push(e.value);
      }
      out.push(e.domain);
      break;
    default:
      break;
  }
  return out;
}

/** Every variable in an expression, nested bodies included. */
export function deepVars(e: Expr): Set<string> {
  const out = new Set<string>();
  for (const t of operands(e, true)) for (const v of termDeepVars(t)) out.add(v);
  if (e.type === 'every') for (const x of e.body) for (const v of deepVars(x)) out.add(v);
  return out;
}

function termDeepVars(t: Term): Set<string> {
  const out = new Set<string>();
  const walk = (x: Term): void => {
    switch (x.type) {
      case 'scalar':
        return;
      case 'var':
        if (!ROOTS.has(x.name)) out.add(x.name);
        return;
      case 'ref':
        walk(x.head);
        x.path.forEach(walk);
        return;
      case 'array':
      case 'set':
      case 'object':
      case 'call':
        parts(x)!.forEach(walk);
        return;
      case 'arraycomp':
      case 'setcomp':
        walk(x.term);
        for (const e of x.body) for (const v of deepVars(e)) out.add(v);
        return;
      case 'objectcomp':
        walk(x.key);
        walk(x.value);
        for (const e of x.body) for (const v of deepVars(e)) out.add(v);
        return;
    }
  };
  walk(t);
  return out;
}
