import { spawn } from 'node:child_process';

/** Starts the line a run's process prints its result on (JSON after it). */
export const RESULT_PREFIX = 'BENCH_RESULT ';

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

/**
 * The body of a run's own process: `run` the spec given as its JSON argument, print the result
 * after RESULT_PREFIX and exit 0, or print the error and exit 1. A signal makes it exit (not die),
 * so exit handlers stop the stand-ins and brokers the run started.
 */
export function runAsChild<S, R>(run: (spec: S) => Promise<R>): void {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));
  run(JSON.parse(process.argv[2] ?? '') as S).then(
    (result) => {
      process.stdout.write(`${RESULT_PREFIX}${JSON.stringify(result)}\n`);
      process.exit(0);
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
