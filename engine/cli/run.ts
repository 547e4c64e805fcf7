import { loadConfig } from '../config/index.ts';
import { resolveSecrets } from '../secrets/index.ts';
import type { CliCommand } from './command.ts';
import { printWarnings, reportConfigError } from './report.ts';

// Placeholder until the runtime is wired: it validates and resolves secrets, then says so.
export const runCommand: CliCommand = {
  name: 'run',
  summary: 'run the engine on a configuration (runtime not available yet)',
  usage: `Usage: streamfold run <config>

Validates <config> and resolves its secrets. The runtime is not wired yet: the command
then reports so and exits 1.

Options:
  -h, --help  show this help`,
  options: {},
  positionals: 1,
  async run({ positionals }, io) {
    try {
      const { config, warnings } = await loadConfig(positionals[0]!);
      printWarnings(warnings, io);
      await resolveSecrets(config);
      io.err(`${positionals[0]}: valid, but the runtime is not available yet`);
      return 1;
    } catch (error) {
      return reportConfigError(error, io, positionals[0]!);
    }
  },
};
