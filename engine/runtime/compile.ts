import type { Config } from '../config/index.ts';
import { describeFilter } from '../filter/describe.ts';
import { buildStoreEdges, type CompiledEdge } from '../filter/index.ts';
import { buildGraph, type Graph } from '../graph/index.ts';
import type { StoreLayout } from '../store/index.ts';
import { buildTopology, type Topology } from '../topology/index.ts';

/** A validated configuration turned into what the runtime executes. */
export interface CompiledConfig {
  readonly config: Config;
  readonly graph: Graph;
  readonly topology: Topology;
  readonly layout: StoreLayout;
  /** Consumer topic of each node (node ids are consumer names). */
  readonly topics: ReadonlyMap<string, string>;
}

export function compileConfig(config: Config): CompiledConfig {
  const graph = buildGraph(config.processor.graph);
  const edges = new Map<string, CompiledEdge>(buildStoreEdges(graph.edges.values()).map((e) => [e.id, e]));
  const topology = buildTopology(graph, (edge) => edges.get(edge.id) as CompiledEdge);
  const layout: StoreLayout = {
    configId: config.id,
    nodes: graph.topologicalOrder,
    edges: [...edges.values()],
    heads: graph.heads,
  };
  const topics = new Map(
    Object.entries(config.consumers.config).map(([node, consumer]) => [node, consumer.topic]),
  );
  return { config, graph, topology, layout, topics };
}

/** The reflection route's body: nodes with topics and edges, heads, readable filters, mode. */
export function reflect(compiled: CompiledConfig): unknown {
  const { graph, topics, config } = compiled;
  return {
    id: config.id,
    mode: config.processor.mode,
    heads: graph.heads,
    nodes: graph.topologicalOrder.map((id) => ({
      id,
      topic: topics.get(id),
      head: graph.heads.includes(id),
      in: graph.nodes.get(id)?.in.map((e) => e.id) ?? [],
      out: graph.nodes.get(id)?.out.map((e) => e.id) ?? [],
    })),
    edges: [...graph.edges.values()].map((e) => ({
      id: e.id,
      parent: e.parent,
      child: e.child,
      filter: e.filter,
      ...describeFilter(e.filter, e.parent, e.child),
    })),
  };
}
