import type { StoreLayout } from '../layout.ts';

export function sinkCollection(configId: string, node: string): string {
  return `__sink_${configId}_${node}`;
}

export function emittedCollection(configId: string, head: string): string {
  return `__emitted_${configId}_${head}`;
}

export interface IndexPlan {
  readonly collection: string;
  readonly indexes: ReadonlyArray<{ key: Record<string, 1>; name: string; unique?: boolean }>;
}

/**
 * engine.md §8: unique `__pk` everywhere; `value.<F>` for the foreign paths of a node's
 * in-edges and `value.<L>` for the local paths of its out-edges.
 */
export function indexPlan(layout: StoreLayout): IndexPlan[] {
  const pk = { key: { __pk: 1 as const }, name: '__pk_1', unique: true };
  const nodes = layout.nodes.map((node) => {
    const paths = new Set<string>();
    for (const edge of layout.edges) {
      if (edge.child === node) for (const p of edge.filter.childIndexPaths) paths.add(p);
      if (edge.parent === node) for (const p of edge.filter.parentIndexPaths) paths.add(p);
    }
    const byPath = [...paths].map((p) => ({ key: { [p]: 1 as const }, name: `${p}_1` }));
    return { collection: sinkCollection(layout.configId, node), indexes: [pk, ...byPath] };
  });
  const heads = layout.heads.map((head) => ({
    collection: emittedCollection(layout.configId, head),
    indexes: [pk],
  }));
  return [...nodes, ...heads];
}

/** The hosts of a connection URL, without credentials or options, for error messages. */
export function describeHosts(url: string): string {
  const afterScheme = url.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '');
  const authority = afterScheme.split(/[/?#]/)[0] ?? '';
  return authority.slice(authority.lastIndexOf('@') + 1) || '(no host)';
}

/** Removes the user information of a URL from a text (a driver message may quote it). */
export function redactUrl(text: string, url: string): string {
  const userInfo = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)@/i.exec(url)?.[1];
  return userInfo ? text.split(userInfo).join('***') : text;
}
