import type { GraphConfig } from './types.ts';

export interface EdgeEndpoints {
  /** Nodes listing the edge in `edges.out`; exactly one in a valid graph. */
  readonly parents: string[];
  /** Nodes listing the edge in `edges.in`; exactly one in a valid graph. */
  readonly children: string[];
}

/** For every edge id referenced by a node or declared, which nodes reference it and how. */
export function edgeEndpoints(graph: GraphConfig): Map<string, EdgeEndpoints> {
  const endpoints = new Map<string, EdgeEndpoints>();
  const entry = (edgeId: string): EdgeEndpoints => {
    let found = endpoints.get(edgeId);
    if (!found) {
      found = { parents: [], children: [] };
      endpoints.set(edgeId, found);
    }
    return found;
  };
  for (const edge of graph.edges) entry(edge.id);
  for (const node of graph.nodes) {
    for (const edgeId of node.edges.out) entry(edgeId).parents.push(node.id);
    for (const edgeId of node.edges.in) entry(edgeId).children.push(node.id);
  }
  return endpoints;
}

/** Node id -> child node ids, following every parent/child pair an edge id names. */
export function childrenByNode(graph: GraphConfig): Map<string, string[]> {
  const children = new Map<string, string[]>(graph.nodes.map((node) => [node.id, []]));
  for (const { parents, children: targets } of edgeEndpoints(graph).values()) {
    for (const parent of parents) children.get(parent)?.push(...targets);
  }
  return children;
}
