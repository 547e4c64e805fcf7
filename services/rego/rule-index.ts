/**
 * Rule indexing, as OPA does it for the common shape of authorization policies: many rules of one
 * name, each guarded by `input.x.y == "const"` (or `=`). The rule set is indexed on the input path
 * that tells most rules apart; evaluation then looks that path up once and runs only the rules
 * whose guard can hold, instead of trying every body.
 */
import type { Expr, Rule, Term } from './ast.ts';
import { lookup } from './documents.ts';
import { constantValue, refPath } from './terms.ts';
import { keyOf, type Value } from './values.ts';

export interface RuleIndex {
  /** Path below `input` of the guard. */
  path: string[];
  /** Per guard value (by `keyOf`), the rules that can hold: guarded by it or not guarded. */
  byValue: Map<string, Rule[]>;
  /** Rules without a guard on the path: all that can hold when the input value matches no guard. */
  unguarded: Rule[];
}

interface Guard {
  path: string;
  value: Value;
}

/** The index of a rule set, when at least two of its rules are guarded on one input path. */
export function buildRuleIndex(rules: Rule[]): RuleIndex | undefined {
  if (rules.length < 2) return undefined;
  const guards = rules.map((rule) => (rule.else ? [] : rule.body.flatMap((e) => guardOf(e) ?? [])));
  const distinct = new Map<string, Set<string>>();
  for (const list of guards)
    for (const g of list) {
      const values = distinct.get(g.path) ?? new Set();
      values.add(keyOf(g.value));
      distinct.set(g.path, values);
    }
  let best: string | undefined;
  for (const [path, values] of distinct)
    if (best === undefined || values.size > distinct.get(best)!.size) best = path;
  if (best === undefined) return undefined;
  const guardOn = guards.map((list) => list.find((g) => g.path === best));
  if (guardOn.filter(Boolean).length < 2) return undefined;
  const byValue = new Map<string, Rule[]>();
  const unguarded: Rule[] = [];
  for (const [i, rule] of rules.entries()) {
    const guard = guardOn[i];
    if (!guard) {
      unguarded.push(rule);
      for (const list of byValue.values()) list.push(rule);
      continue;
    }
    const key = keyOf(guard.value);
    // A value seen first now starts with the unguarded rules before it, keeping source order.
    if (!byValue.has(key)) byValue.set(key, [...unguarded]);
    byValue.get(key)!.push(rule);
  }
  return { path: JSON.parse(best) as string[], byValue, unguarded };
}

/** The rules of an indexed set that can hold for this input, in source order. */
export function candidateRules(index: RuleIndex, input: Value | undefined): Rule[] {
  let v: Value | undefined = input;
  for (const part of index.path) {
    if (v === undefined) break;
    v = lookup(v, part);
  }
  return (v === undefined ? undefined : index.byValue.get(keyOf(v))) ?? index.unguarded;
}

/** `input.a.b == const` or `input.a.b = const` (either side), not negated and without `with`. */
function guardOf(e: Expr): Guard | undefined {
  if (e.negated || e.with.length > 0) return undefined;
  let pair: [Term, Term] | undefined;
  if (e.type === 'unify') pair = [e.left, e.right];
  else if (e.type === 'term' && e.term.type === 'call' && e.term.name === 'equal' && e.term.args.length === 2)
    pair = [e.term.args[0]!, e.term.args[1]!];
  if (!pair) return undefined;
  for (const [ref, other] of [pair, [pair[1], pair[0]] as const]) {
    const path = refPath(ref);
    const value = constantValue(other);
    if (path && path[0] === 'input' && path.length > 1 && value !== undefined)
      return { path: JSON.stringify(path.slice(1)), value };
  }
  return undefined;
}
