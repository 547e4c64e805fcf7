import { childrenByNode, edgeEndpoints, findCycle } from '../graph/index.ts';
import type { ConfigIssue } from './errors.ts';
import type { Config } from './index.ts';
import { formatJsonPath, type JsonPath } from './json-path.ts';

export interface ReferenceCheck {
  errors: ConfigIssue[];
  warnings: ConfigIssue[];
}

const GRAPH: JsonPath = ['processor', 'graph'];

function issue(path: JsonPath, rule: string, value?: unknown): ConfigIssue {
  return value === undefined
    ? { path: formatJsonPath(path), rule }
    : { path: formatJsonPath(path), rule, value };
}

// The connection schema only admits type "kafka", so naming a connection is naming a kafka one.
function checkConnectionNames(config: Config): ConfigIssue[] {
  const references: Array<[JsonPath, string]> = [
    ...Object.entries(config.consumers.config).map(([name, consumer]): [JsonPath, string] => [
      ['consumers', 'config', name, 'connectionName'],
      consumer.connectionName,
    ]),
    [['producer', 'config', 'connectionName'], config.producer.config.connectionName],
    [
      ['processor', 'internalUpdates', 'config', 'connectionName'],
      config.processor.internalUpdates.config.connectionName,
    ],
  ];
  return references
    .filter(([, name]) => !Object.hasOwn(config.connections, name))
    .map(([path, name]) => issue(path, 'must name an entry of connections', name));
}

function checkNodesMatchConsumers(config: Config): ConfigIssue[] {
  const nodeIds = new Set(config.processor.graph.nodes.map((node) => node.id));
  const consumerNames = Object.keys(config.consumers.config);
  return [
    ...config.processor.graph.nodes
      .map((node, index) => ({ node, index }))
      .filter(({ node }) => !Object.hasOwn(config.consumers.config, node.id))
      .map(({ node, index }) =>
        issue([...GRAPH, 'nodes', index, 'id'], 'must name a consumer of consumers.config', node.id),
      ),
    ...consumerNames
      .filter((name) => !nodeIds.has(name))
      .map((name) =>
        issue(['consumers', 'config', name], 'must be the id of a node of processor.graph.nodes'),
      ),
  ];
}

function checkUniqueIds(items: ReadonlyArray<{ id: string }>, field: 'edges' | 'nodes'): ConfigIssue[] {
  const firstIndex = new Map<string, number>();
  return items.flatMap((item, index) => {
    const first = firstIndex.get(item.id);
    if (first === undefined) {
      firstIndex.set(item.id, index);
      return [];
    }
    return [
      issue([...GRAPH, field, index, 'id'], `duplicate id, already used by ${field}[${first}]`, item.id),
    ];
  });
}

function checkEdgeReferences(config: Config): ConfigIssue[] {
  const { graph } = config.processor;
  const endpoints = edgeEndpoints(graph);
  const declared = new Set(graph.edges.map((edge) => edge.id));
  const issues: ConfigIssue[] = [];
  graph.nodes.forEach((node, nodeIndex) => {
    for (const direction of ['in', 'out'] as const) {
      node.edges[direction].forEach((edgeId, index) => {
        if (!declared.has(edgeId)) {
          issues.push(
            issue(
              [...GRAPH, 'nodes', nodeIndex, 'edges', direction, index],
              'must name an edge of processor.graph.edges',
              edgeId,
            ),
          );
        }
      });
    }
  });
  const reported = new Set<string>();
  graph.edges.forEach((edge, index) => {
    if (reported.has(edge.id)) return;
    reported.add(edge.id);
    const { parents, children } = endpoints.get(edge.id)!;
    for (const [nodes, direction] of [
      [parents, 'out'],
      [children, 'in'],
    ] as const) {
      if (nodes.length !== 1) {
        const found = nodes.length === 0 ? 'none' : nodes.join(', ');
        issues.push(
          issue(
            [...GRAPH, 'edges', index, 'id'],
            `must be listed in exactly one node's edges.${direction} (found: ${found})`,
            edge.id,
          ),
        );
      }
    }
  });
  return issues;
}

function checkShape(config: Config): ConfigIssue[] {
  const { graph } = config.processor;
  const issues: ConfigIssue[] = [];
  const cycle = findCycle(childrenByNode(graph));
  if (cycle) issues.push(issue(GRAPH, `cycle ${cycle.join(' -> ')}`));
  if (!graph.nodes.some((node) => node.edges.in.length === 0)) {
    issues.push(
      issue([...GRAPH, 'nodes'], 'must contain at least one head (a node whose edges.in is empty)'),
    );
  }
  return issues;
}

function cartesianWarnings(config: Config): ConfigIssue[] {
  return config.processor.graph.edges.flatMap((edge, index) =>
    edge.filter === true
      ? [
          issue(
            [...GRAPH, 'edges', index, 'filter'],
            'true links every parent record to every child record (cartesian product)',
          ),
        ]
      : [],
  );
}

/** The rules a JSON Schema cannot express; every problem is collected, not only the first. */
export function checkReferences(config: Config): ReferenceCheck {
  return {
    errors: [
      ...checkConnectionNames(config),
      ...checkNodesMatchConsumers(config),
      ...checkUniqueIds(config.processor.graph.edges, 'edges'),
      ...checkUniqueIds(config.processor.graph.nodes, 'nodes'),
      ...checkEdgeReferences(config),
      ...checkShape(config),
    ],
    warnings: cartesianWarnings(config),
  };
}
