import type { JsonObject } from '../../operators/record/json.ts';
import type { Store } from '../store/types.ts';
import { node, type Topology } from '../topology/index.ts';

/** A version of a record: a stored one, or the old version of a record just changed. */
export interface RecordVersion {
  readonly ck: string;
  readonly key: JsonObject;
  readonly value: JsonObject;
}

/** Head node -> the keys (ck -> key object) of its records affected by a change. */
export type AffectedHeads = Map<string, Map<string, JsonObject>>;

/**
 * Walks upward from changed records of `start` to the head records whose aggregates they can
 * change (`engine.md` §6). Pass both the old and the new version of each changed record: a
 * record that moved between parents affects both. One `findParents` call per edge for the whole
 * batch; nodes are visited children-first so each node's parents are asked for once.
 */
export async function findAffectedHeads(
  store: Store,
  topology: Topology,
  start: string,
  versions: readonly RecordVersion[],
): Promise<AffectedHeads> {
  // Versions of one ck differ only at the start node; above it each record is the stored one.
  const pending = new Map<string, RecordVersion[]>([[start, [...versions]]]);
  const affected: AffectedHeads = new Map();
  for (const nodeId of [...topology.topologicalOrder].reverse()) {
    const records = pending.get(nodeId);
    if (!records || records.length === 0) continue;
    const current = node(topology, nodeId);
    if (current.in.length === 0) {
      const keys = affected.get(nodeId) ?? new Map<string, JsonObject>();
      for (const r of records) keys.set(r.ck, r.key);
      affected.set(nodeId, keys);
      continue;
    }
    const values = records.map((r) => r.value);
    const parentsPerEdge = await Promise.all(current.in.map((edge) => store.findParents(edge, values)));
    current.in.forEach((edge, i) => {
      const seen = new Set((pending.get(edge.parent) ?? []).map((r) => r.ck));
      const list = pending.get(edge.parent) ?? [];
      for (const parents of parentsPerEdge[i] ?? []) {
        for (const parent of parents) {
          if (seen.has(parent.ck)) continue;
          seen.add(parent.ck);
          list.push(parent);
        }
      }
      pending.set(edge.parent, list);
    });
  }
  return affected;
}
