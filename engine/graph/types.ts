import type { GenericFilter } from '../filter/ast.ts';

export interface GraphEdge {
  readonly id: string;
  /** The node listing the edge in `edges.out` (the `local` side of the filter). */
  readonly parent: string;
  /** The node listing the edge in `edges.in` (the `foreign` side of the filter). */
  readonly child: string;
  readonly filter: GenericFilter;
}

export interface GraphNode {
  readonly id: string;
  readonly in: readonly GraphEdge[];
  readonly out: readonly GraphEdge[];
}

export interface Graph {
  readonly nodes: ReadonlyMap<string, GraphNode>;
  readonly edges: ReadonlyMap<string, GraphEdge>;
  /** Nodes without in-edges, in declaration order. */
  readonly heads: readonly string[];
  /** Every node after all its parents; ties in declaration order. */
  readonly topologicalOrder: readonly string[];
  /** The nodes reachable from `head` (itself included), in topological order. */
  subgraph(head: string): string[];
}

/** The graph part of a configuration, as `engine/config` validates it. */
export interface GraphConfig {
  readonly edges: ReadonlyArray<{ readonly id: string; readonly filter: GenericFilter }>;
  readonly nodes: ReadonlyArray<{
    readonly id: string;
    readonly edges: { readonly in: readonly string[]; readonly out: readonly string[] };
  }>;
}
