export { buildGraph, GraphError } from './build.ts';
export { findCycle } from './cycle.ts';
export { childrenByNode, type EdgeEndpoints, edgeEndpoints } from './endpoints.ts';
export { topologicalSort } from './topology.ts';
export type { Graph, GraphConfig, GraphEdge, GraphNode } from './types.ts';
