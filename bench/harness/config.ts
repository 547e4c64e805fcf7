import type { Config } from '../../engine/config/index.ts';
import { parseConfig } from '../../engine/config/index.ts';
import type { GraphSpec } from '../workloads/index.ts';

/**
 * The benchmark's configuration of a graph, through the real parser, with the defaults a user
 * gets (mode read-delete, compression window 250 ms, commit intervals): nothing tuned for speed.
 * The connections are never dialled: the benchmark runs on the in-process broker.
 */
export function benchConfig(graph: GraphSpec): Config {
  const document = {
    id: 'benchmark01',
    connections: { main: { type: 'kafka', config: { 'bootstrap.servers': '127.0.0.1:9092' } } },
    consumers: {
      type: 'kafka',
      config: Object.fromEntries(graph.nodes.map((n) => [n, { topic: n, connectionName: 'main' }])),
    },
    producer: { type: 'kafka', config: { connectionName: 'main', topic: 'output' } },
    processor: {
      graph: {
        edges: graph.edges.map((e) => ({ id: e.id, filter: e.filter })),
        nodes: graph.nodes.map((n) => ({
          id: n,
          edges: {
            in: graph.edges.filter((e) => e.child === n).map((e) => e.id),
            out: graph.edges.filter((e) => e.parent === n).map((e) => e.id),
          },
        })),
      },
      persistence: { type: 'mongodb', config: { url: 'mongodb://127.0.0.1:27017' } },
      internalUpdates: { type: 'kafka', config: { topic: 'internal', connectionName: 'main' } },
    },
  };
  return parseConfig(JSON.stringify(document)).config;
}
