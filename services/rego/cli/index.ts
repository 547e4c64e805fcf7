/** `streamfold rego eval|test|partial|cases`: the Rego engine of `services/rego` on files. */
import { type CliCommand, UsageError } from '../../kit/cli-command.ts';
import { REGO_OPTIONS, regoArgs } from './args.ts';
import { regoCases } from './cases.ts';
import { regoEval } from './eval.ts';
import { regoPartial } from './partial.ts';
import { regoTest } from './test-command.ts';

const USAGE = `Usage:
  streamfold rego eval [-d FILE_OR_DIR]... [-i input.json] [--v0-compatible] [--format json|pretty] QUERY
  streamfold rego test [--v0-compatible] FILE_OR_DIR...
  streamfold rego partial -d FILE_OR_DIR... [-i input.json] [--unknowns data.resources]... [--mongo]
                          [--v0-compatible] [--format json|pretty] QUERY
  streamfold rego cases [--format json|pretty] FILE_OR_DIR...

eval     prints every solution as \`opa eval\` does: {"result":[{"expressions":[…],"bindings":{…}}]},
         {} when the query is undefined, {"errors":[{code,message,location}]} and exit 1 on error.
test     runs every test_* rule (defined and not false passes): a PASS/FAIL line per test and a
         summary; exit 1 when a test fails or none is found.
partial  partial evaluation with the unknowns (default data.resources): {"queries":[[expr…]…]},
         with --mongo also "mongo": the MongoDB filter of the row filter.
cases    runs OPA conformance case files (YAML); with --format json one line per case,
         {"file","note","result","error","pass"}; exit 1 when a case fails.

-d loads .rego files as modules and .json files as data at their directory's path below the
directory given. Modules are read as Rego v1 unless they only parse as v0 (--v0-compatible: v0).

Options:
  -d, --data FILE_OR_DIR  policy and data files (repeatable)
  -i, --input FILE        the input document (JSON)
  --v0-compatible         read modules as Rego v0 (OPA 0.x syntax)
  --format json|pretty    output format (eval and partial: json; cases: pretty)
  --unknowns REF          unknown document for partial (repeatable; default data.resources)
  --mongo                 partial: also print the MongoDB filter
  -h, --help              show this help`;

const SUBCOMMANDS = ['eval', 'test', 'partial', 'cases'] as const;

export const regoCommand: CliCommand = {
  name: 'rego',
  summary: 'evaluate, test and partially evaluate Rego policies; run OPA conformance cases',
  usage: USAGE,
  options: REGO_OPTIONS,
  positionals: { min: 1 },
  async run(parsed, io) {
    const [sub, ...rest] = parsed.positionals;
    const one = (what: string): string => {
      if (rest.length !== 1) throw new UsageError(`rego ${sub} takes one ${what}, got ${rest.length}`);
      return rest[0]!;
    };
    const some = (what: string): string[] => {
      if (rest.length === 0) throw new UsageError(`rego ${sub} takes at least one ${what}`);
      return rest;
    };
    switch (sub) {
      case 'eval':
        return regoEval(
          regoArgs(sub, parsed, ['data', 'input', 'v0-compatible', 'format'], 'json'),
          one('QUERY'),
          io,
        );
      case 'test':
        return regoTest(regoArgs(sub, parsed, ['v0-compatible'], 'pretty'), some('FILE_OR_DIR'), io);
      case 'partial': {
        const args = regoArgs(
          sub,
          parsed,
          ['data', 'input', 'v0-compatible', 'format', 'unknowns', 'mongo'],
          'json',
        );
        if (args.data.length === 0) throw new UsageError('rego partial needs -d FILE_OR_DIR');
        return regoPartial(args, one('QUERY'), io);
      }
      case 'cases':
        return regoCases(regoArgs(sub, parsed, ['format'], 'pretty'), some('FILE_OR_DIR'), io);
      default:
        throw new UsageError(
          `unknown subcommand ${JSON.stringify(sub)}; expected one of ${SUBCOMMANDS.join(', ')}`,
        );
    }
  },
};
