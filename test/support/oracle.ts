import type { Config } from '../../engine/config/index.ts';
import type { CompiledFilter } from '../../engine/filter/index.ts';
import { canonicalJson, compareCanonical } from '../../engine/record/key.ts';
import { compileConfig } from '../../engine/runtime/compile.ts';
import type { JsonObject, JsonValue } from '../../operators/record/json.ts';

export interface InputEvent {
  topic: string;
  key: JsonObject;
  value: { op: string; before?: unknown; after: JsonObject | null } | null;
}

/**
 * The expected aggregates, computed the slow and obvious way from the final state: apply the
 * events in order per key, then for each head record join every pair of records with the
 * edge's link predicate, applying the multi-parent rule of `engine.md` §4 by fixpoint. It shares
 * nothing with the engine but the compiled predicate, so it checks the incremental machinery
 * (upward walks, compression, ordering) and the store lookups.
 */
export function expectedAggregates(
  config: Config,
  events: readonly InputEvent[],
): Map<string, Map<string, JsonValue>> {
  const { graph, topics } = compileConfig(config);
  const nodeOfTopic = new Map([...topics].map(([node, topic]) => [topic, node]));
  const state = new Map<string, Map<string, JsonObject>>(graph.topologicalOrder.map((n) => [n, new Map()]));
  for (const e of events) {
    const node = nodeOfTopic.get(e.topic);
    if (!node || !e.value) continue;
    const ck = canonicalJson(e.key);
    if (e.value.op === 'd') state.get(node)?.delete(ck);
    else if (e.value.after) state.get(node)?.set(ck, e.value.after);
  }
  const compiled = compileConfig(config);
  const filterOf = new Map(compiled.layout.edges.map((e) => [e.id, e.filter as CompiledFilter]));
  const result = new Map<string, Map<string, JsonValue>>();
  for (const head of graph.heads) {
    const members = graph.subgraph(head);
    const perHead = new Map<string, JsonValue>();
    for (const [ck, value] of state.get(head) ?? []) {
      // Included records per node: linked to >= 1 included record of each in-subgraph parent.
      const included = new Map<string, Map<string, JsonObject>>([[head, new Map([[ck, value]])]]);
      for (const node of members.slice(1)) {
        const inEdges = (graph.nodes.get(node)?.in ?? []).filter((e) => members.includes(e.parent));
        const records = new Map<string, JsonObject>();
        for (const [childCk, child] of state.get(node) ?? []) {
          const ok = inEdges.every((e) =>
            [...(included.get(e.parent)?.values() ?? [])].some((p) => filterOf.get(e.id)?.links(p, child)),
          );
          if (ok) records.set(childCk, child);
        }
        included.set(node, records);
      }
      const build = (node: string, record: JsonObject): JsonValue => {
        const dependencies: Record<string, JsonValue> = {};
        const out = graph.nodes.get(node)?.out ?? [];
        for (const child of new Set(out.map((e) => e.child))) {
          const edges = out.filter((e) => e.child === child);
          dependencies[child] = [...(included.get(child) ?? [])]
            .filter(([, c]) => edges.every((e) => filterOf.get(e.id)?.links(record, c)))
            .sort(([a], [b]) => compareCanonical(a, b))
            .map(([, c]) => build(child, c));
        }
        return { value: record, dependencies };
      };
      perHead.set(ck, build(head, value));
    }
    result.set(head, perHead);
  }
  return result;
}
