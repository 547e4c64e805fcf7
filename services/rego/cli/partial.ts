/** `streamfold rego partial`: the residual queries of a row filter, and with `--mongo` its filter. */

import type { CliIo } from '../../kit/cli-command.ts';
import { formatResidual, jsonText, toMongoQuery } from '../index.ts';
import type { RegoArgs } from './args.ts';
import { loadPolicy, readJson } from './load.ts';
import { reportError } from './output.ts';

export async function regoPartial(args: RegoArgs, query: string, io: CliIo): Promise<number> {
  try {
    const { policy, data } = loadPolicy(args.data, args.v0Compatible);
    const input = args.input === undefined ? undefined : readJson(args.input);
    const residual = await policy.partialAsync(query, { input, data, unknowns: args.unknowns });
    const queries = formatResidual(residual);
    const out = args.mongo ? { queries, mongo: toMongoQuery(residual) } : { queries };
    if (args.format === 'json') io.out(jsonText(out, 2));
    else {
      if (queries.length === 0) io.out('no residual query: the query cannot hold');
      for (const [i, body] of queries.entries()) io.out(`query ${i + 1}:\n  ${body.join('\n  ')}`);
      if (args.mongo) io.out(`mongo: ${jsonText(out.mongo)}`);
    }
    return 0;
  } catch (error) {
    return reportError(error, args.format, io);
  }
}
