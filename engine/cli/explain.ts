import type { CliCommand } from '../../services/kit/cli-command.ts';
import { type Config, loadConfig } from '../config/index.ts';
import { describeFilter } from '../filter/describe.ts';
import { buildGraph, type Graph } from '../graph/index.ts';
import { printWarnings, reportConfigError } from './report.ts';

function explainLines(config: Config, graph: Graph): string[] {
  const lines = [
    `configuration ${config.id}: mode ${config.processor.mode}, output topic ${config.producer.config.topic}`,
    '',
    'nodes (topological order):',
  ];
  for (const id of graph.topologicalOrder) {
    const node = graph.nodes.get(id)!;
    const parents = node.in.map((edge) => edge.parent);
    const role = parents.length === 0 ? 'head' : `parents ${parents.join(', ')}`;
    lines.push(`  ${id} (topic ${config.consumers.config[id]?.topic}): ${role}`);
  }
  lines.push('', 'heads:');
  for (const head of graph.heads) lines.push(`  ${head}: ${graph.subgraph(head).join(', ')}`);
  lines.push('', 'edges:');
  for (const edge of graph.edges.values()) {
    const { sentence, down, up } = describeFilter(edge.filter, edge.parent, edge.child);
    lines.push(
      `  ${edge.id}: ${edge.parent} -> ${edge.child}`,
      `    ${sentence}`,
      `    down: ${down}`,
      `    up:   ${up}`,
    );
  }
  return lines;
}

export const explainCommand: CliCommand = {
  name: 'explain',
  summary: 'show the graph, the heads and each edge filter as a sentence',
  usage: `Usage: streamfold explain <config>

Validates <config> (secrets are not resolved), then prints the nodes in topological
order, each head with the nodes it aggregates, and each edge filter read as a sentence:
a comparison {"$op": [{"foreign": F}, R]} reads "R op child.F", local paths belong to
the parent. "down" is how children of one parent record are found, "up" the reverse.

Options:
  -h, --help  show this help`,
  options: {},
  positionals: 1,
  async run({ positionals }, io) {
    try {
      const { config, warnings } = await loadConfig(positionals[0]!);
      printWarnings(warnings, io);
      for (const line of explainLines(config, buildGraph(config.processor.graph))) io.out(line);
      return 0;
    } catch (error) {
      return reportConfigError(error, io, positionals[0]!);
    }
  },
};
