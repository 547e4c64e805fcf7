import type { Graph, GraphEdge } from '../graph/index.ts';
import type { StoreEdge } from '../store/types.ts';

/**
 * The runtime's view of the graph (`engine/graph`): the same nodes and edges, each edge carrying
 * its compiled filter for the store, and per head the levels of its subgraph. Built once.
 */
export interface TopologyNode {
  readonly id: string;
  readonly in: readonly StoreEdge[];
  readonly out: readonly StoreEdge[];
}

export interface Topology {
  readonly nodes: ReadonlyMap<string, TopologyNode>;
  readonly heads: readonly string[];
  /** Every node, parents before children. */
  readonly topologicalOrder: readonly string[];
  /**
   * Per head, its subgraph (itself included) in levels: the parents of a level's nodes inside the
   * subgraph are all in earlier levels, so one level's lookups run concurrently.
   */
  readonly levels: ReadonlyMap<string, readonly (readonly string[])[]>;
}

export function node(topology: Topology, id: string): TopologyNode {
  const found = topology.nodes.get(id);
  if (!found) throw new Error(`unknown node ${id}`);
  return found;
}

export function buildTopology(graph: Graph, compileEdge: (edge: GraphEdge) => StoreEdge): Topology {
  const edges = new Map([...graph.edges.values()].map((e) => [e.id, compileEdge(e)]));
  const nodes = new Map(
    [...graph.nodes.values()].map((n) => [
      n.id,
      {
        id: n.id,
        in: n.in.map((e) => edges.get(e.id) as StoreEdge),
        out: n.out.map((e) => edges.get(e.id) as StoreEdge),
      },
    ]),
  );
  const levels = new Map(graph.heads.map((head) => [head, subgraphLevels(nodes, graph.subgraph(head))]));
  return { nodes, heads: graph.heads, topologicalOrder: graph.topologicalOrder, levels };
}

function subgraphLevels(nodes: ReadonlyMap<string, TopologyNode>, subgraph: readonly string[]): string[][] {
  const members = new Set(subgraph);
  const depth = new Map<string, number>();
  const levels: string[][] = [];
  for (const id of subgraph) {
    const parents = (nodes.get(id)?.in ?? []).filter((e) => members.has(e.parent));
    const level = parents.length === 0 ? 0 : 1 + Math.max(...parents.map((e) => depth.get(e.parent) ?? 0));
    depth.set(id, level);
    levels[level] = [...(levels[level] ?? []), id];
  }
  return levels;
}
