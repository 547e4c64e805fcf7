export { type CompiledFilter, compileFilter, pathSegments } from './compile.ts';
export { buildStoreEdges, type CompiledEdge, type EdgeDefinition } from './edges.ts';
export type { EqualityPair } from './equality.ts';
export { compileQuery, type Query, toMongoFilter } from './mongo/query.ts';
