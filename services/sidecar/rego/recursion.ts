/**
 * OPA's recursion check: rules (and functions) may not depend on themselves through any chain of
 * references; reported at compile time as `rego_recursion_error`.
 */
import type { Body, Expr, Rule, Term } from './ast.ts';
import type { RuleNode, RuleSet } from './compiler.ts';
import { RegoError } from './errors.ts';

export function checkRecursion(root: RuleNode): void {
  const sets = allRuleSets(root);
  const edges = new Map<RuleSet, RuleSet[]>();
  for (const rs of sets) edges.set(rs, [...dependencies(root, rs)]);
  const state = new Map<RuleSet, 'active' | 'done'>();
  const stack: RuleSet[] = [];
  const visit = (rs: RuleSet): void => {
    if (state.get(rs) === 'done') return;
    if (state.get(rs) === 'active') {
      const cycle = [...stack.slice(stack.indexOf(rs)), rs].map((r) => r.path.join('.'));
      throw new RegoError(
        'rego_recursion_error',
        `rule ${cycle[0]} is recursive: ${cycle.join(' -> ')}`,
        rs.rules[0]?.loc,
      );
    }
    state.set(rs, 'active');
    stack.push(rs);
    for (const dep of edges.get(rs) ?? []) visit(dep);
    stack.pop();
    state.set(rs, 'done');
  };
  for (const rs of sets) visit(rs);
}

function allRuleSets(node: RuleNode): RuleSet[] {
  const out = node.ruleSet ? [node.ruleSet] : [];
  for (const child of node.children.values()) out.push(...allRuleSets(child));
  return out;
}

/** Rule sets a rule set refers to: by `data` refs (their ground prefix) and by function calls. */
function dependencies(root: RuleNode, rs: RuleSet): Set<RuleSet> {
  const out = new Set<RuleSet>();
  const addPath = (path: string[]) => {
    let node: RuleNode | undefined = root;
    for (const part of path) {
      if (node.ruleSet) break;
      const next: RuleNode | undefined = node.children.get(part);
      if (!next) return;
      node = next;
    }
    for (const dep of allRuleSets(node)) out.add(dep);
  };
  const rules: Rule[] = [...rs.rules, ...(rs.defaultRule ? [rs.defaultRule] : [])];
  for (const rule of rules) {
    const terms = [rule.head.key, rule.head.value, ...(rule.head.tail ?? [])];
    for (const t of terms) if (t) termRefs(t, addPath);
    bodyRefs(rule.body, addPath);
    for (let e = rule.else; e; e = e.else) {
      if (e.value) termRefs(e.value, addPath);
      bodyRefs(e.body, addPath);
    }
  }
  return out;
}

type OnPath = (path: string[]) => void;

function bodyRefs(body: Body, on: OnPath): void {
  for (const e of body) exprRefs(e, on);
}

function exprRefs(e: Expr, on: OnPath): void {
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

function termRefs(t: Term, on: OnPath): void {
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
