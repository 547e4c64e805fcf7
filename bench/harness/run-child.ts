import { spawn } from 'node:child_process';
import { RESULT_PREFIX } from './child.ts';

/**
 * Runs `script` (a run of its own, e.g. `harness/child.ts`) in a child process with `spec` as its
 * JSON argument and resolves with the result it printed after RESULT_PREFIX. A run that hangs is
 * stopped with SIGTERM after `timeoutMs` (which lets it stop the databases it started).
 */
export function runChild<S, R>(script: string, spec: S, timeoutMs: number): Promise<R> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, JSON.stringify(spec)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGTERM');
    }, timeoutMs);
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      const line = output.split('\n').find((l) => l.startsWith(RESULT_PREFIX));
      if (code === 0 && line) resolve(JSON.parse(line.slice(RESULT_PREFIX.length)) as R);
      else if (timedOut)
        reject(
          new Error(
            `bench run ${JSON.stringify(spec)} stopped at its time limit (${timeoutMs / 60_000} min)`,
          ),
        );
      else reject(new Error(`bench run ${JSON.stringify(spec)} failed (exit ${code})`));
    });
  });
}
