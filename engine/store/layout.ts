import type { CompiledEdge } from '../filter/index.ts';
import { UnknownStoreTargetError } from './errors.ts';
import type { StoreEdge } from './types.ts';

/** What every store is built from: the configuration's nodes, compiled edges and heads. */
export interface StoreLayout {
  /** The configuration id, part of MongoDB collection names. */
  readonly configId: string;
  readonly nodes: readonly string[];
  readonly edges: readonly CompiledEdge[];
  readonly heads: readonly string[];
}

/** Resolves the edge a caller passes to the configured one, with its compiled filter. */
export function edgeLookup(layout: StoreLayout): (edge: StoreEdge) => CompiledEdge {
  const byId = new Map(layout.edges.map((e) => [e.id, e]));
  return (edge) => {
    const known = byId.get(edge.id);
    if (!known) throw new UnknownStoreTargetError(`unknown edge "${edge.id}"`);
    return known;
  };
}

export function checkKnown(kind: 'node' | 'head', name: string, known: { has(name: string): boolean }): void {
  if (!known.has(name)) throw new UnknownStoreTargetError(`unknown ${kind} "${name}"`);
}
