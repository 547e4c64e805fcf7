/**
 * Rule and query bodies compiled once to closures, one per expression, for the shapes
 * authorization policies are made of: a test of a ground term (`input.method == "GET"`,
 * `"admin" in input.user.groups`, `not input.deleted`), `x := <ground term>`, and
 * `some x in <ground term>`. Each closure computes its term with `direct.ts`; any other expression,
 * or a term that needs the general evaluator at run time (`FALLBACK`), runs through `host.general`.
 */
import type { Body, Expr, Term } from './ast.ts';
import type { CompiledPlan } from './compiler.ts';
import { type Direct, type DirectHost, directOf, FALLBACK } from './direct.ts';
import type { Cont, Env } from './evaluator.ts';
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
export function bodyClosures(body: Body, plan: PlanFunctions): ExprClosure[] {
  let closures = compiled.get(body);
  if (!closures) {
    closures = body.map((e) => exprClosure(e, plan));
    compiled.set(body, closures);
  }
  return closures;
}

/** What compiling a body needs of its plan: which names are functions, and the builtins. */
type PlanFunctions = Pick<CompiledPlan, 'arityOf' | 'builtins'>;

function exprClosure(e: Expr, plan: PlanFunctions): ExprClosure {
  const general: ExprClosure = (host, env, k) => host.general(e, env, k);
  if (e.with.length > 0) return general;
  switch (e.type) {
    case 'term':
      return testClosure(e, plan) ?? general;
    case 'unify':
    case 'assign':
      return e.negated
        ? general
        : (assignClosure(e, e.left, e.right, plan) ?? assignClosure(e, e.right, e.left, plan) ?? general);
    case 'somein':
      return e.negated ? general : (someInClosure(e, plan) ?? general);
    default:
      return general;
  }
}

/** A term expression: holds when the term is defined and not false (negated: the opposite). */
function testClosure(e: Extract<Expr, { type: 'term' }>, plan: PlanFunctions): ExprClosure | null {
  const t = e.term;
  // A call with its output argument (`count(xs, n)`) binds a variable: general evaluation.
  if (t.type === 'call' && t.args.length === (plan.arityOf(t.name) ?? -1) + 1) return null;
  const direct = directOf(t, plan.builtins);
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
function assignClosure(e: Expr, target: Term, source: Term, plan: PlanFunctions): ExprClosure | null {
  if (target.type !== 'var' || isRoot(target)) return null;
  const direct: Direct | null = directOf(source, plan.builtins);
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
function someInClosure(e: Extract<Expr, { type: 'somein' }>, plan: PlanFunctions): ExprClosure | null {
  const direct = directOf(e.collection, plan.builtins);
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
