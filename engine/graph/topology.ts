/**
 * Kahn's algorithm over node -> children: every node after all its parents, ties broken by the
 * order of the map (declaration order). Returns null when a cycle leaves nodes unordered.
 */
export function topologicalSort(children: ReadonlyMap<string, readonly string[]>): string[] | null {
  const declared = [...children.keys()];
  const pendingParents = new Map<string, number>(declared.map((node) => [node, 0]));
  for (const targets of children.values()) {
    for (const target of targets) pendingParents.set(target, (pendingParents.get(target) ?? 0) + 1);
  }
  const order: string[] = [];
  const placed = new Set<string>();
  while (order.length < declared.length) {
    const next = declared.find((node) => !placed.has(node) && pendingParents.get(node) === 0);
    if (next === undefined) return null;
    order.push(next);
    placed.add(next);
    for (const target of children.get(next) ?? []) {
      pendingParents.set(target, (pendingParents.get(target) ?? 0) - 1);
    }
  }
  return order;
}
