import type { StoreEdge } from '../store/types.ts';
import type { GenericFilter } from './ast.ts';
import { type CompiledFilter, compileFilter } from './compile.ts';

export interface EdgeDefinition {
  readonly id: string;
  readonly parent: string;
  readonly child: string;
  readonly filter: GenericFilter;
}

/** The edge as stores take it: its ends and its compiled filter. */
export type CompiledEdge = StoreEdge<CompiledFilter>;

/** Compiles each edge's filter once; errors name the edge. */
export function buildStoreEdges(edges: Iterable<EdgeDefinition>): CompiledEdge[] {
  return [...edges].map((edge) => {
    try {
      return { id: edge.id, parent: edge.parent, child: edge.child, filter: compileFilter(edge.filter) };
    } catch (err) {
      throw new Error(`edge "${edge.id}": ${(err as Error).message}`);
    }
  });
}
