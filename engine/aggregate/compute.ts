import type { JsonObject } from '../../operators/record/json.ts';
import type { LinkedRecords, Store, StoredRecord, StoreEdge } from '../store/types.ts';
import { node, type Topology } from '../topology/index.ts';

/** `engine.md` §4: a record and, per out-edge target, the aggregates of its linked children. */
export interface Aggregate {
  readonly value: JsonObject;
  readonly dependencies: { readonly [child: string]: Aggregate[] };
}

/** Per edge: for each parent ck, the linked child records (ordered by ck). */
type EdgeLinks = Map<string, LinkedRecords>;

/** The out-edges of a node to one child node (several must all link). */
interface ChildEdges {
  readonly child: string;
  readonly edges: readonly [StoreEdge, ...StoreEdge[]];
}

/** A head's subgraph as the builder walks it (derived from the topology, per call). */
interface Subgraph {
  readonly levels: readonly (readonly string[])[];
  /** Per node, its in-edges whose parent is in the subgraph. */
  readonly inEdges: ReadonlyMap<string, readonly StoreEdge[]>;
  /** Per node, its out-edges grouped by child node, in out-edge order. */
  readonly outEdges: ReadonlyMap<string, readonly ChildEdges[]>;
  /** Some node has several in-edges: membership must be decided per head record (§4). */
  readonly multiParent: boolean;
}

/**
 * One head record's aggregate, as renderers walk it top-down: from `record` (of node `node`),
 * `dependencies` names each record's members per child node. Nothing is rendered yet, so each
 * form (objects for the HTTP API, JSON text for outputs, see `serialize.ts`) builds its result
 * in one pass, without intermediate forms.
 */
export interface AggregateTree {
  readonly node: string;
  readonly record: StoredRecord;
  /** Per child node of `nodeId`, in out-edge order: the members in this aggregate, ordered by ck. */
  dependencies(nodeId: string, record: StoredRecord): ReadonlyArray<readonly [string, LinkedRecords]>;
}

/** The object form: `{value, dependencies}` (§4). */
export function aggregateObject(tree: AggregateTree): Aggregate {
  const build = (nodeId: string, record: StoredRecord): Aggregate => ({
    value: record.value,
    // Defined, not assigned: a node may be called `__proto__`.
    dependencies: Object.fromEntries(
      tree
        .dependencies(nodeId, record)
        .map(([child, members]) => [child, members.map((member) => build(child, member))]),
    ),
  });
  return build(tree.node, tree.record);
}

/**
 * Computes the aggregates of many records of one head in one pass: per edge of the head's
 * subgraph, one `findChildren` call for the union of the parents every head record needs, so a
 * batch costs one store round trip per edge whatever its size.
 *
 * Multi-parent rule (§4): a record of a node with several in-edges is part of a head's aggregate
 * only when it links to at least one included record of each of its parents in that subgraph.
 * In a tree-shaped subgraph every linked child of an included parent is included, so the
 * per-head bookkeeping is skipped.
 */
export async function computeAggregates(
  store: Store,
  topology: Topology,
  head: string,
  records: readonly StoredRecord[],
): Promise<Map<string, Aggregate>> {
  const linked = await linkAggregates(store, topology, head, records);
  return new Map(records.map((record) => [record.ck, aggregateObject(linked.tree(record))]));
}

/** The links of a batch of head records, fetched; rendering one aggregate is then CPU work only. */
export interface LinkedAggregates {
  /** The aggregate of one of the batch's head records. */
  tree(record: StoredRecord): AggregateTree;
}

/** The store half of {@link computeAggregates}: every lookup of the batch, one per edge. */
export async function linkAggregates(
  store: Store,
  topology: Topology,
  head: string,
  records: readonly StoredRecord[],
): Promise<LinkedAggregates> {
  const subgraph = subgraphOf(topology, head);
  const links = await fetchLinks(store, subgraph, head, records);
  return {
    tree(record) {
      const included = subgraph.multiParent ? includedFor(subgraph, links, head, record) : null;
      return new LinkedTree(subgraph, links, included, head, record);
    },
  };
}

/** A tree over fetched links: a class, not a closure per head record (one of these per output). */
class LinkedTree implements AggregateTree {
  constructor(
    private readonly subgraph: Subgraph,
    private readonly links: ReadonlyMap<string, EdgeLinks>,
    private readonly included: ReadonlyMap<string, ReadonlySet<string>> | null,
    readonly node: string,
    readonly record: StoredRecord,
  ) {}

  dependencies(nodeId: string, record: StoredRecord): ReadonlyArray<readonly [string, LinkedRecords]> {
    return dependenciesOf(this.subgraph, this.links, this.included, nodeId, record);
  }
}

function subgraphOf(topology: Topology, head: string): Subgraph {
  const levels = topology.levels.get(head);
  if (!levels) throw new Error(`${head} is not a head node`);
  const members = new Set(levels.flat());
  const inEdges = new Map<string, StoreEdge[]>();
  const outEdges = new Map<string, ChildEdges[]>();
  for (const id of members) {
    inEdges.set(
      id,
      node(topology, id).in.filter((e) => members.has(e.parent)),
    );
    const byChild = new Map<string, [StoreEdge, ...StoreEdge[]]>();
    for (const edge of node(topology, id).out) {
      const list = byChild.get(edge.child);
      if (list) list.push(edge);
      else byChild.set(edge.child, [edge]);
    }
    outEdges.set(
      id,
      [...byChild].map(([child, edges]) => ({ child, edges })),
    );
  }
  const multiParent = [...inEdges.values()].some((edges) => edges.length > 1);
  return { levels, inEdges, outEdges, multiParent };
}

/**
 * Level by level, the links of every edge for every record that may be in some head record's
 * aggregate: a child is a candidate when it links to a candidate parent on each of its in-edges.
 */
async function fetchLinks(
  store: Store,
  subgraph: Subgraph,
  head: string,
  records: readonly StoredRecord[],
): Promise<Map<string, EdgeLinks>> {
  const links = new Map<string, EdgeLinks>();
  const candidates = new Map<string, readonly StoredRecord[]>([[head, records]]);
  for (const level of subgraph.levels.slice(1)) {
    await Promise.all(
      level.map(async (child) => {
        const edges = subgraph.inEdges.get(child) ?? [];
        const reached = await Promise.all(
          edges.map(async (edge) => {
            const parents = candidates.get(edge.parent) ?? [];
            const children =
              parents.length === 0
                ? []
                : await store.findChildren(
                    edge,
                    parents.map((p) => p.value),
                  );
            const byParent: EdgeLinks = new Map();
            for (let i = 0; i < parents.length; i++) {
              byParent.set((parents[i] as StoredRecord).ck, children[i] ?? []);
            }
            links.set(edge.id, byParent);
            return children;
          }),
        );
        // Only parents of a further level need the deduplicated list (not the leaves, the most).
        if ((subgraph.outEdges.get(child)?.length ?? 0) > 0) candidates.set(child, linkedOnEvery(reached));
      }),
    );
  }
  return links;
}

/**
 * The records present in some list of every edge's lists, each once, in first-seen order. One
 * `findChildren` answer holds one object per record, so identity deduplicates a single edge.
 */
function linkedOnEvery(perEdge: readonly (readonly LinkedRecords[])[]): StoredRecord[] {
  const [first = [], ...others] = perEdge;
  const seen = new Set<StoredRecord>();
  const result: StoredRecord[] = [];
  for (const list of first) {
    for (const record of list) {
      if (seen.has(record)) continue;
      seen.add(record);
      result.push(record);
    }
  }
  if (others.length === 0) return result;
  const onOthers = others.map((lists) => new Set(lists.flatMap((list) => list.map((r) => r.ck))));
  return result.filter((record) => onOthers.every((cks) => cks.has(record.ck)));
}

/** Per node, the cks of the records in this head record's aggregate (multi-parent subgraphs). */
function includedFor(
  subgraph: Subgraph,
  links: ReadonlyMap<string, EdgeLinks>,
  head: string,
  record: StoredRecord,
): Map<string, Set<string>> {
  const included = new Map<string, Set<string>>([[head, new Set([record.ck])]]);
  for (const level of subgraph.levels.slice(1)) {
    for (const child of level) {
      let members: Set<string> | undefined;
      for (const edge of subgraph.inEdges.get(child) ?? []) {
        const viaEdge = new Set<string>();
        const byParent = links.get(edge.id);
        for (const parentCk of included.get(edge.parent) ?? []) {
          for (const c of byParent?.get(parentCk) ?? []) viaEdge.add(c.ck);
        }
        members = members ? new Set([...members].filter((ck) => viaEdge.has(ck))) : viaEdge;
      }
      included.set(child, members ?? new Set());
    }
  }
  return included;
}

const NO_DEPENDENCIES: ReadonlyArray<readonly [string, LinkedRecords]> = [];

function dependenciesOf(
  subgraph: Subgraph,
  links: ReadonlyMap<string, EdgeLinks>,
  included: ReadonlyMap<string, ReadonlySet<string>> | null,
  nodeId: string,
  record: StoredRecord,
): ReadonlyArray<readonly [string, LinkedRecords]> {
  const out = subgraph.outEdges.get(nodeId) ?? [];
  // Most records are leaves: nothing to allocate.
  if (out.length === 0) return NO_DEPENDENCIES;
  const dependencies: Array<readonly [string, LinkedRecords]> = new Array(out.length);
  for (let d = 0; d < out.length; d++) {
    const { child, edges } = out[d] as ChildEdges;
    // Several edges to one child node must all link (like several in-edges, §1): intersect them.
    // Lists are ordered by ck, and filtering keeps that order (§4).
    let linked = links.get(edges[0].id)?.get(record.ck) ?? [];
    for (let e = 1; e < edges.length; e++) {
      const other = links.get((edges[e] as StoreEdge).id)?.get(record.ck) ?? [];
      linked = linked.filter((c) => other.some((o) => o.ck === c.ck));
    }
    const members = included?.get(child);
    dependencies[d] = [child, members ? linked.filter((c) => members.has(c.ck)) : linked];
  }
  return dependencies;
}
