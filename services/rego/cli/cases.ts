/** `streamfold rego cases`: OPA conformance case files, one verdict per case. */

import type { CliIo } from '../../kit/cli-command.ts';
import { loadCaseFiles } from '../conformance/load.ts';
import { runCase } from '../conformance/run-case.ts';
import type { RegoArgs } from './args.ts';
import { LoadError } from './load.ts';
import { reportError } from './output.ts';

export async function regoCases(args: RegoArgs, paths: string[], io: CliIo): Promise<number> {
  let passed = 0;
  let total = 0;
  try {
    for (const path of paths) {
      let files: ReturnType<typeof loadCaseFiles>;
      try {
        files = loadCaseFiles(path);
      } catch (error) {
        throw new LoadError((error as Error).message);
      }
      for (const { file, cases } of files) {
        for (const c of cases) {
          const outcome = await runCase(c);
          total++;
          if (outcome.pass) passed++;
          if (args.format === 'json') io.out(JSON.stringify({ file, ...outcome }));
          else {
            const why = outcome.error ? `: ${outcome.error.code}: ${outcome.error.message}` : '';
            io.out(`${outcome.pass ? 'PASS' : 'FAIL'} ${file}#${outcome.note}${outcome.pass ? '' : why}`);
          }
        }
      }
    }
  } catch (error) {
    return reportError(error, args.format, io);
  }
  if (args.format !== 'json') io.out(`${passed}/${total} cases passed`);
  return passed === total ? 0 : 1;
}
