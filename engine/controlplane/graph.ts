import { describeFilter } from '../filter/describe.ts';
import type { CompiledConfig } from '../runtime/compile.ts';
import type { EngineGraph } from './messages.ts';

/** The graph an engine sends once per stream; the ids are added by the client. */
export type GraphDescription = Omit<EngineGraph, 'engineId' | 'instanceId'>;

/** The aggregation graph of a configuration, with each filter as `streamfold explain` writes it. */
export function graphDescription(compiled: CompiledConfig): GraphDescription {
  const { graph, topics } = compiled;
  return {
    nodes: graph.topologicalOrder.map((id) => ({ id, topic: topics.get(id) ?? '' })),
    edges: [...graph.edges.values()].map((edge) => ({
      id: edge.id,
      parent: edge.parent,
      child: edge.child,
      sentence: describeFilter(edge.filter, edge.parent, edge.child).sentence,
    })),
    heads: [...graph.heads],
  };
}
