import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deleteTopics } from '../../local-kafka/admin.ts';
import { createRunTopics } from './kafka-topics.ts';
import { LISTENING, type RestRunResult, type RestRunSpec, type ServeResult } from './rest-run.ts';
import { RESULT_PREFIX, runChild } from './run-child.ts';

const script = join(dirname(fileURLToPath(import.meta.url)), 'rest-run.ts');
const TIMEOUT_MS = 5 * 60_000;

export interface RestRound {
  /** The load generator's figures (its own CPU per request included). */
  readonly rest: RestRunResult;
  /** The service's CPU per request, µs; null if it did not report it. */
  readonly serviceCpuMicrosPerRequest: number | null;
  readonly produce: RestRunResult;
}

/**
 * One round of the REST-to-broker benchmark on fresh topics of `partitions`: the route under the
 * load generator (service and generator each a process of its own, on loopback), then the bare
 * produce loop at the same concurrency.
 */
export async function restRound(
  bootstrap: string,
  options: {
    readonly requests: number;
    readonly concurrency: number;
    readonly partitions: number;
    readonly runId: string;
  },
): Promise<RestRound> {
  const { requests, concurrency } = options;
  const topics = { rest: `bench.${options.runId}.rest`, produce: `bench.${options.runId}.produce` };
  await createRunTopics(bootstrap, {
    [topics.rest]: options.partitions,
    [topics.produce]: options.partitions,
  });
  try {
    const service = await startService({ mode: 'serve', bootstrap, topic: topics.rest });
    const rest = await runChild<RestRunSpec, RestRunResult>(
      script,
      { mode: 'load', url: service.url, requests, concurrency },
      TIMEOUT_MS,
    ).finally(() => service.stop());
    const served = await service.stop();
    const produce = await runChild<RestRunSpec, RestRunResult>(
      script,
      { mode: 'produce', bootstrap, topic: topics.produce, requests, concurrency },
      TIMEOUT_MS,
    );
    return {
      rest,
      serviceCpuMicrosPerRequest: served ? (served.cpuSeconds * 1e6) / requests : null,
      produce,
    };
  } finally {
    await deleteTopics(bootstrap, Object.values(topics));
  }
}

/**
 * The `serve` process, once it listens. `stop` ends it (SIGTERM: it flushes and closes) and
 * resolves with what it reported, the same on every call.
 */
function startService(spec: RestRunSpec): Promise<{ url: string; stop(): Promise<ServeResult | null> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', script, JSON.stringify(spec)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  const exited = new Promise<ServeResult | null>((done) =>
    child.once('exit', () => {
      const line = output.split('\n').find((l) => l.startsWith(RESULT_PREFIX));
      done(line ? (JSON.parse(line.slice(RESULT_PREFIX.length)) as ServeResult) : null);
    }),
  );
  const stop = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    return exited;
  };
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const line = output.split('\n').find((l) => l.startsWith(LISTENING));
      if (line) resolve({ url: `http://127.0.0.1:${line.slice(LISTENING.length).trim()}`, stop });
    });
    child.once('exit', (code) =>
      reject(new Error(`the rest2broker service exited (${code}) before listening`)),
    );
  });
}
