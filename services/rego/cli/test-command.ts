/** `streamfold rego test`: every `test_*` rule must be defined and not false. */

import type { CliIo } from '../../kit/cli-command.ts';
import { toJSONText } from '../index.ts';
import type { RegoArgs } from './args.ts';
import { loadPolicy } from './load.ts';
import { reportError } from './output.ts';

type Outcome = 'PASS' | 'FAIL' | 'ERROR';

export async function regoTest(args: RegoArgs, paths: string[], io: CliIo): Promise<number> {
  let loaded: ReturnType<typeof loadPolicy>;
  try {
    loaded = loadPolicy(paths, args.v0Compatible);
  } catch (error) {
    return reportError(error, 'pretty', io);
  }
  const { policy, data } = loaded;
  const tests = policy.rulePaths().filter((path) => path.split('.').at(-1)!.startsWith('test_'));
  const counts: Record<Outcome, number> = { PASS: 0, FAIL: 0, ERROR: 0 };
  for (const path of tests) {
    const started = process.hrtime.bigint();
    let outcome: Outcome;
    let detail = '';
    try {
      const [solution] = await policy.evalAsync(`x := ${path}`, { data, strictBuiltinErrors: true });
      const value = solution?.get('x');
      outcome = value === undefined || value === false ? 'FAIL' : 'PASS';
      if (value !== undefined && outcome === 'FAIL') detail = ` (value ${toJSONText(value)})`;
    } catch (error) {
      outcome = 'ERROR';
      detail = `: ${error instanceof Error ? error.message : String(error)}`;
    }
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    counts[outcome]++;
    io.out(`${path}: ${outcome} (${ms.toFixed(1)}ms)${detail}`);
  }
  io.out('-'.repeat(80));
  for (const outcome of ['PASS', 'FAIL', 'ERROR'] as const)
    if (counts[outcome] > 0 || (outcome === 'PASS' && tests.length === 0))
      io.out(`${outcome}: ${counts[outcome]}/${tests.length}`);
  if (tests.length === 0) io.err('streamfold rego test: no test_* rule found');
  return counts.FAIL + counts.ERROR > 0 || tests.length === 0 ? 1 : 0;
}
