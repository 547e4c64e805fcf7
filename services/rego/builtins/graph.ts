/** `walk` (a relation: one solution per node) and `graph.reachable/_paths`. */
import { RegoObject, RegoSet, type Value } from '../values.ts';
import { type BuiltinTable, collection, mustBe, obj } from './types.ts';

function walkAll(v: Value, path: Value[], out: Value[]): void {
  out.push([path, v]);
  if (Array.isArray(v)) {
    for (const [i, c] of v.entries()) walkAll(c, [...path, i], out);
  } else if (v instanceof RegoObject) for (const [k, c] of v.sortedPairs()) walkAll(c, [...path, k], out);
  else if (v instanceof RegoSet) for (const c of v.sorted()) walkAll(c, [...path, c], out);
}

function neighbours(graph: RegoObject, node: Value): Value[] {
  const edges = graph.get(node);
  if (edges === undefined || edges === null) return [];
  if (Array.isArray(edges)) return edges;
  if (edges instanceof RegoSet) return edges.sorted();
  return [];
}

export const graph: BuiltinTable = {
  walk: {
    arity: 1,
    fn: ([v]) => [[], v!],
    all: ([v]) => {
      const out: Value[] = [];
      walkAll(v!, [], out);
      return out;
    },
  },
  'graph.reachable': {
    arity: 2,
    fn: (args, name) => {
      const g = obj(name, args, 0);
      const seen = new RegoSet();
      const todo = [...collection(name, args, 1)];
      while (todo.length > 0) {
        const n = todo.pop()!;
        if (seen.has(n) || !g.has(n)) continue;
        seen.add(n);
        todo.push(...neighbours(g, n));
      }
      return seen;
    },
  },
  'graph.reachable_paths': {
    arity: 2,
    fn: (args, name) => {
      const g = obj(name, args, 0);
      mustBe(name, 1, args[1]!, 'array', 'set');
      const out = new RegoSet();
      const visit = (path: Value[]): void => {
        const last = path[path.length - 1]!;
        const next = neighbours(g, last).filter((n) => g.has(n) && !path.some((p) => p === n));
        if (next.length === 0) out.add(path);
        for (const n of next) visit([...path, n]);
      };
      for (const start of collection(name, args, 1)) if (g.has(start)) visit([start]);
      return out;
    },
  },
};
