import type { CliCommand } from '../../services/kit/cli-command.ts';
import { loadConfig } from '../config/index.ts';
import { buildGraph } from '../graph/index.ts';
import { resolveSecrets } from '../secrets/index.ts';
import { printWarnings, reportConfigError } from './report.ts';

export const validateCommand: CliCommand = {
  name: 'validate',
  summary: 'check a configuration: schema, references, graph and secrets',
  usage: `Usage: streamfold validate <config> [--skip-secrets]

Checks <config> (a JSON file) against the configuration schema, the cross-references
(connections, consumers vs nodes, edges, cycles, heads) and resolves every Secret.
Exit 0 with a one-line summary, or exit 1 with every problem as "path: rule (value)".

Options:
  --skip-secrets  do not resolve env/file secrets (e.g. for a machine without them)
  -h, --help      show this help`,
  options: { 'skip-secrets': { type: 'boolean' } },
  positionals: 1,
  async run({ positionals, values }, io) {
    const path = positionals[0]!;
    try {
      const { config, warnings } = await loadConfig(path);
      if (!values['skip-secrets']) await resolveSecrets(config);
      printWarnings(warnings, io);
      const graph = buildGraph(config.processor.graph);
      const secrets = values['skip-secrets'] ? ', secrets not checked' : '';
      io.out(
        `${path}: valid, id ${config.id}, ${graph.nodes.size} nodes, ${graph.edges.size} edges, ` +
          `heads ${graph.heads.join(', ')}, mode ${config.processor.mode}${secrets}`,
      );
      return 0;
    } catch (error) {
      return reportConfigError(error, io, positionals[0]!);
    }
  },
};
