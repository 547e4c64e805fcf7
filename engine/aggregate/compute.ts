import type { JsonObject } from '../record/json.ts';
import { compareCanonical } from '../record/key.ts';
import type { Store, StoredRecord, StoreEdge } from '../store/types.ts';
import { node, type Topology } from '../topology/index.ts';

/** `engine.md` §4: a record and, per out-edge target, the aggregates of its linked children. */
export interface Aggregate {
  readonly value: JsonObject;
  readonly dependencies: { readonly [child: string]: Aggregate[] };
}

/** Per edge: for each parent ck, the linked child records (already ordered by ck). */
type EdgeLinks = Map<string, readonly StoredRecord[]>;

/**
 * Computes the aggregates of many records of one head in one pass: per edge of the head's
 * subgraph, one `findChildren` call for the union of the parents every head record needs, so a
 * batch costs one store round trip per edge whatever its size.
 *
 * Multi-parent rule (§4): a record of a node with several in-edges is part of a head's aggregate
 * only when it links to at least one included record of each of its parents in that subgraph.
 */
export async function computeAggregates(
  store: Store,
  topology: Topology,
  head: string,
  records: readonly StoredRecord[],
): Promise<Map<string, Aggregate>> {
  const levels = topology.levels.get(head);
  if (!levels) throw new Error(`${head} is not a head node`);
  const inSubgraph = new Set(levels.flat());
  // included[i]: per node, the records of head record i's aggregate, by ck.
  const included = records.map((r) => new Map([[head, new Map([[r.ck, r]])]]));
  const links = new Map<string, EdgeLinks>();

  for (const level of levels.slice(1)) {
    await Promise.all(
      level.map(async (child) => {
        const edges = node(topology, child).in.filter((e) => inSubgraph.has(e.parent));
        const edgeLinks = await Promise.all(edges.map((edge) => fetchLinks(store, edge, included)));
        for (const [i, edge] of edges.entries()) links.set(edge.id, edgeLinks[i] as EdgeLinks);
        for (const nodes of included) nodes.set(child, linkedToEveryParent(edges, edgeLinks, nodes));
      }),
    );
  }

  const result = new Map<string, Aggregate>();
  const outEdges = outEdgesByChild(topology, inSubgraph);
  records.forEach((record, i) => {
    result.set(
      record.ck,
      build(outEdges, links, included[i] as Map<string, Map<string, StoredRecord>>, head, record),
    );
  });
  return result;
}

async function fetchLinks(
  store: Store,
  edge: StoreEdge,
  included: readonly Map<string, Map<string, StoredRecord>>[],
): Promise<EdgeLinks> {
  const parents = new Map<string, StoredRecord>();
  for (const nodes of included) for (const [ck, r] of nodes.get(edge.parent) ?? []) parents.set(ck, r);
  const parentList = [...parents.values()];
  if (parentList.length === 0) return new Map();
  const children = await store.findChildren(
    edge,
    parentList.map((p) => p.value),
  );
  return new Map(parentList.map((p, i) => [p.ck, children[i] ?? []]));
}

function linkedToEveryParent(
  edges: readonly StoreEdge[],
  edgeLinks: readonly EdgeLinks[],
  nodes: Map<string, Map<string, StoredRecord>>,
): Map<string, StoredRecord> {
  let result: Map<string, StoredRecord> | undefined;
  edges.forEach((edge, i) => {
    const viaEdge = new Map<string, StoredRecord>();
    for (const parentCk of nodes.get(edge.parent)?.keys() ?? []) {
      for (const child of edgeLinks[i]?.get(parentCk) ?? []) viaEdge.set(child.ck, child);
    }
    result = result ? new Map([...result].filter(([ck]) => viaEdge.has(ck))) : viaEdge;
  });
  return result ?? new Map();
}

/** Per node of the subgraph, its out-edges grouped by child node (computed once per batch). */
type OutEdges = ReadonlyMap<string, ReadonlyMap<string, readonly StoreEdge[]>>;

function outEdgesByChild(topology: Topology, nodes: ReadonlySet<string>): OutEdges {
  const result = new Map<string, Map<string, StoreEdge[]>>();
  for (const nodeId of nodes) {
    const byChild = new Map<string, StoreEdge[]>();
    for (const edge of node(topology, nodeId).out) {
      const list = byChild.get(edge.child);
      if (list) list.push(edge);
      else byChild.set(edge.child, [edge]);
    }
    result.set(nodeId, byChild);
  }
  return result;
}

function build(
  outEdges: OutEdges,
  links: ReadonlyMap<string, EdgeLinks>,
  nodes: ReadonlyMap<string, ReadonlyMap<string, StoredRecord>>,
  nodeId: string,
  record: StoredRecord,
): Aggregate {
  const dependencies: Record<string, Aggregate[]> = {};
  for (const [child, edges] of outEdges.get(nodeId) ?? []) {
    const members = nodes.get(child);
    // Several edges to one child node must all link (like several in-edges, §1): intersect them.
    // The store returns each list ordered by ck, and filtering keeps that order (§4).
    const [first = [], ...others] = edges.map((e) => links.get(e.id)?.get(record.ck) ?? []);
    const linked = first.filter(
      (c) => members?.has(c.ck) && others.every((list) => list.some((o) => o.ck === c.ck)),
    );
    dependencies[child] = linked.map((c) => build(outEdges, links, nodes, child, c));
  }
  return { value: record.value, dependencies };
}
