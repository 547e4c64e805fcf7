/** `streamfold rego eval`: a query's solutions in `opa eval`'s JSON shape. */

import type { CliIo } from '../../kit/cli-command.ts';
import { jsonText, toJSON, type Value } from '../index.ts';
import type { RegoArgs } from './args.ts';
import { loadPolicy, readJson } from './load.ts';
import { reportError } from './output.ts';

export async function regoEval(args: RegoArgs, query: string, io: CliIo): Promise<number> {
  try {
    const { policy, data } = loadPolicy(args.data, args.v0Compatible);
    const input = args.input === undefined ? undefined : readJson(args.input);
    const solutions = await policy.evalExpressionsAsync(query, { input, data });
    const result = solutions.map((s) => ({
      expressions: s.expressions.map((e) => ({ ...e, value: toJSON(e.value, true) })),
      ...(s.bindings.size > 0 ? { bindings: bindingsJson(s.bindings) } : {}),
    }));
    if (args.format === 'json') io.out(jsonText(result.length > 0 ? { result } : {}, 2));
    else if (result.length === 0) io.out('undefined');
    else for (const line of prettyLines(result)) io.out(line);
    return 0;
  } catch (error) {
    return reportError(error, args.format, io);
  }
}

function bindingsJson(bindings: Map<string, Value>): Record<string, unknown> {
  return Object.fromEntries([...bindings].map(([name, v]) => [name, toJSON(v, true)]));
}

/** One value alone as indented JSON; otherwise per solution its bindings and expression values. */
function prettyLines(
  result: { expressions: { value: unknown; text: string }[]; bindings?: Record<string, unknown> }[],
): string[] {
  const [only] = result;
  if (result.length === 1 && only && !only.bindings && only.expressions.length === 1)
    return [jsonText(only.expressions[0]!.value, 2)];
  return result.flatMap((solution, i) => [
    ...(i > 0 ? [''] : []),
    ...Object.entries(solution.bindings ?? {}).map(([name, v]) => `${name} = ${jsonText(v)}`),
    ...solution.expressions.map((e) => `${e.text} => ${jsonText(e.value)}`),
  ]);
}
