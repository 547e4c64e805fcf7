import { findCycle } from './cycle.ts';
import { childrenByNode, edgeEndpoints } from './endpoints.ts';
import { topologicalSort } from './topology.ts';
import type { Graph, GraphConfig, GraphEdge, GraphNode } from './types.ts';

/** A graph that `engine/config/references.ts` would have rejected. */
export class GraphError extends Error {
  override readonly name = 'GraphError';
}

function resolveEdges(graph: GraphConfig): Map<string, GraphEdge> {
  const endpoints = edgeEndpoints(graph);
  const edges = new Map<string, GraphEdge>();
  for (const edge of graph.edges) {
    const { parents, children } = endpoints.get(edge.id)!;
    if (parents.length !== 1 || children.length !== 1 || edges.has(edge.id)) {
      throw new GraphError(`edge ${edge.id} must be declared once, in one node's out and one node's in`);
    }
    edges.set(edge.id, { id: edge.id, parent: parents[0]!, child: children[0]!, filter: edge.filter });
  }
  for (const edgeId of endpoints.keys()) {
    if (!edges.has(edgeId)) throw new GraphError(`edge ${edgeId} is referenced but not declared`);
  }
  return edges;
}

/** Indexes a validated graph configuration. Pure; throws GraphError on an invalid graph. */
export function buildGraph(graph: GraphConfig): Graph {
  const edges = resolveEdges(graph);
  const children = childrenByNode(graph);
  const topologicalOrder = topologicalSort(children);
  if (!topologicalOrder) throw new GraphError(`cycle ${findCycle(children)?.join(' -> ')}`);

  const nodes = new Map<string, GraphNode>();
  for (const node of graph.nodes) {
    if (nodes.has(node.id)) throw new GraphError(`node ${node.id} is declared twice`);
    nodes.set(node.id, {
      id: node.id,
      in: node.edges.in.map((edgeId) => edges.get(edgeId)!),
      out: node.edges.out.map((edgeId) => edges.get(edgeId)!),
    });
  }
  const heads = graph.nodes.filter((node) => node.edges.in.length === 0).map((node) => node.id);
  if (heads.length === 0 && nodes.size > 0) throw new GraphError('no head node');

  const subgraph = (head: string): string[] => {
    if (!nodes.has(head)) throw new GraphError(`unknown node ${head}`);
    const reached = new Set<string>([head]);
    for (const id of topologicalOrder) {
      if (!reached.has(id)) continue;
      for (const edge of nodes.get(id)!.out) reached.add(edge.child);
    }
    return topologicalOrder.filter((id) => reached.has(id));
  };

  return { nodes, edges, heads, topologicalOrder, subgraph };
}
