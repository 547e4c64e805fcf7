import type { CliCommand } from '../../services/kit/cli-command.ts';
import { configJsonSchema } from '../config/json-schema.ts';

export const schemaCommand: CliCommand = {
  name: 'schema',
  summary: 'print the JSON Schema (draft-07) of the configuration',
  usage: `Usage: streamfold schema

Prints the draft-07 JSON Schema of the configuration (the committed copy is
engine/config/config.schema.json). Cross-reference rules (connection names, graph
edges, cycles, heads) are checked by "streamfold validate", not by the schema.

Options:
  -h, --help  show this help`,
  options: {},
  positionals: 0,
  async run(_args, io) {
    io.out(JSON.stringify(configJsonSchema(), null, 2));
    return 0;
  },
};
