/** Walks the `data` references of rules, bodies and terms (recursion check, partial evaluation). */
import type { Body, Expr, Rule, Term } from './ast.ts';

export function ruleDataRefs(rule: Rule, on: OnPath): void {
  for (const t of [rule.head.key, rule.head.value, ...(rule.head.tail ?? [])]) if (t) termRefs(t, on);
  bodyRefs(rule.body, on);
  for (let e = rule.else; e; e = e.else) {
    if (e.value) termRefs(e.value, on);
    bodyRefs(e.body, on);
  }
}

/** Called with the ground prefix of each `data` ref, and with `data.…` function names as paths. */
export type OnPath = (path: string[]) => void;

function bodyRefs(body: Body, on: OnPath): void {
  for (const e of body) exprRefs(e, on);
}

export function exprRefs(e: Expr, on: OnPath): void {
  for (const w of e.with) termRefs(w.value, on);
  switch (e.type) {
    case 'term':
      termRefs(e.term, on);
      return;
    case 'unify':
    case 'assign':
      termRefs(e.left, on);
      termRefs(e.right, on);
      return;
    case 'some':
      return;
    case 'somein':
      termRefs(e.collection, on);
      if (e.key) termRefs(e.key, on);
      termRefs(e.value, on);
      return;
    case 'every':
      termRefs(e.domain, on);
      bodyRefs(e.body, on);
      return;
  }
}

export function termRefs(t: Term, on: OnPath): void {
  switch (t.type) {
    case 'ref': {
      if (t.head.type === 'var' && t.head.name === 'data') {
        // The ground prefix of the ref; a non-string constant key names no rule at all.
        const ground: string[] = [];
        let namesRules = true;
        for (const p of t.path) {
          if (p.type !== 'scalar') break;
          if (typeof p.value !== 'string') {
            namesRules = false;
            break;
          }
          ground.push(p.value);
        }
        if (namesRules) on(ground);
      } else termRefs(t.head, on);
      for (const p of t.path) termRefs(p, on);
      return;
    }
    case 'var':
      if (t.name === 'data') on([]);
      return;
    case 'call':
      if (t.name.startsWith('data.')) on(t.name.split('.').slice(1));
      for (const a of t.args) termRefs(a, on);
      return;
    case 'array':
    case 'set':
      for (const i of t.items) termRefs(i, on);
      return;
    case 'object':
      for (const [k, v] of t.entries) {
        termRefs(k, on);
        termRefs(v, on);
      }
      return;
    case 'arraycomp':
    case 'setcomp':
      termRefs(t.term, on);
      bodyRefs(t.body, on);
      return;
    case 'objectcomp':
      termRefs(t.key, on);
      termRefs(t.value, on);
      bodyRefs(t.body, on);
      return;
    case 'scalar':
      return;
  }
}
