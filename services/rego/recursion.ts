/**
 * OPA's recursion check: rules (and functions) may not depend on themselves through any chain of
 * references; reported at compile time as `rego_recursion_error`.
 */
import type { RuleNode, RuleSet } from './compiler.ts';
import { RegoError } from './errors.ts';
import { ruleDataRefs } from './refs.ts';

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

export function allRuleSets(node: RuleNode): RuleSet[] {
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
  for (const rule of [...rs.rules, ...(rs.defaultRule ? [rs.defaultRule] : [])]) ruleDataRefs(rule, addPath);
  return out;
}
