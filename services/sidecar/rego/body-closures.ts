/**
 * Rule and query bodies compiled once to closures, one per expression, for the shapes
 * authorization policies are made of: a test of a ground term (`input.method == "GET"`,
 * `"admin" in input.user.groups`, `not input.deleted`), `x := <ground term>`, and
 * `some x in <ground term>`. Each closure computes its term with `direct.ts`; any other expression,
 * or a term that needs the general evaluator at run time (`FALLBACK`), runs through `host.general`.
 */
import type { Body, Expr, Term } from './ast.ts';
import { type Direct, type DirectHost, directOf, FALLBACK } from './direct.ts';
import type { Cont, Env } from './evaluator.ts';
import type { ArityOf } from './safety.ts';
import { isRoot } from './terms.ts';
import { equal, type Value } from './values.ts';

export interface BodyHost extends DirectHost {
  /** The general evaluation of one expression. */
  general(e: Expr, env: Env, k: Cont): boolean;
  /** Unifies a pattern term with a value, binding its variables for `k`. */
  bind(t: Term, v: Value, env: Env, k: Cont): boolean;
  /** Calls `f(key, value)` per element of a collection until it returns true. */
  each(coll: Value, f: (key: Value, value: Value) => boolean): boolean;
}

export type ExprClosure = (host: BodyHost, env: Env, k: Cont) => boolean;

const compiled = new WeakMap<Body, ExprClosure[]>();

/** The closures of a body's expressions (compiled on first use; bodies belong to one plan). */
export function bodyClosures(body: Body, arityOf: ArityOf): ExprClosure[] {
  let closures = compiled.get(body);
  if (!closures) {
    closures = body.map((e) => exprClosure(e, arityOf));
    compiled.set(body, closures);
  }
  return closures;
}

function exprClosure(e: Expr, arityOf: ArityOf): ExprClosure {
  const general: ExprClosure = (host, env, k) => host.general(e, env, k);
  if (e.with.length > 0) return general;
  switch (e.type) {
    case 'term':
      return testClosure(e, arityOf) ?? general;
    case 'unify':
    case 'assign':
      return e.negated
        ? general
        : (assignClosure(e, e.left, e.right) ?? assignClosure(e, e.right, e.left) ?? general);
    case 'somein':
      return e.negated ? general : (someInClosure(e) ?? general);
    default:
      return general;
  }
}

/** A term expression: holds when the term is defined and not false (negated: the opposite). */
function testClosure(e: Extract<Expr, { type: 'term' }>, arityOf: ArityOf): ExprClosure | null {
  const t = e.term;
  // A call with its output argument (`count(xs, n)`) binds a variable: general evaluation.
  if (t.type === 'call' && t.args.length === (arityOf(t.name) ?? -1) + 1) return null;
  const direct = directOf(t);
  if (!direct) return null;
  const negated = e.negated;
  return (host, env, k) => {
    const v = direct(host, env);
    if (v === FALLBACK) return host.general(e, env, k);
    const holds = v !== undefined && v !== false;
    return holds !== negated ? k() : false;
  };
}

/** `x := term` or `x = term` with `x` a variable (bound: an equality test). */
function assignClosure(e: Expr, target: Term, source: Term): ExprClosure | null {
  if (target.type !== 'var' || isRoot(target)) return null;
  const direct: Direct | null = directOf(source);
  if (!direct) return null;
  const name = target.name;
  return (host, env, k) => {
    const v = direct(host, env);
    if (v === FALLBACK) return host.general(e, env, k);
    if (v === undefined) return false;
    const bound = env.get(name);
    if (bound !== undefined) return equal(bound, v) ? k() : false;
    env.set(name, v);
    const stop = k();
    env.delete(name);
    return stop;
  };
}

/** `some [key,] value in term` over a ground collection. */
function someInClosure(e: Extract<Expr, { type: 'somein' }>): ExprClosure | null {
  const direct = directOf(e.collection);
  if (!direct) return null;
  const { key: keyTerm, value: valueTerm } = e;
  return (host, env, k) => {
    const coll = direct(host, env);
    if (coll === FALLBACK) return host.general(e, env, k);
    if (coll === undefined) return false;
    return host.each(coll, (key, value) =>
      host.bind(valueTerm, value, env, keyTerm ? () => host.bind(keyTerm, key, env, k) : k),
    );
  };
}
