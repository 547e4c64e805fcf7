/**
 * The first cycle of a directed graph given as node -> children, as the node list
 * `[a, b, c, a]`, or null when the graph is acyclic. Nodes are visited in map order, so the
 * answer is deterministic.
 */
export function findCycle(children: ReadonlyMap<string, readonly string[]>): string[] | null {
  const done = new Set<string>();
  const onPath: string[] = [];
  const onPathSet = new Set<string>();

  const visit = (node: string): string[] | null => {
    if (onPathSet.has(node)) return [...onPath.slice(onPath.indexOf(node)), node];
    if (done.has(node)) return null;
    onPath.push(node);
    onPathSet.add(node);
    for (const child of children.get(node) ?? []) {
      const cycle = visit(child);
      if (cycle) return cycle;
    }
    onPath.pop();
    onPathSet.delete(node);
    done.add(node);
    return null;
  };

  for (const node of children.keys()) {
    const cycle = visit(node);
    if (cycle) return cycle;
  }
  return null;
}
