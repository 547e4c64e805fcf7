/**
 * Schemathesis against a service started as `node bin/streamfold.js service <name>` (or the
 * engine's `run --embedded`). A run is bounded (examples per operation, a time box), checks the
 * responses against the service's own OpenAPI document and fails with the text of every failing
 * check. Schemathesis is the version `.ci/requirements.txt` pins, from the virtualenv the tests
 * provision under `~/.cache/streamfold/` (`support/python-tools.ts`): the runner hands its `st` in
 * `SCHEMATHESIS_BIN`, and a file run alone finds the cached one (or provisions it). A missing or
 * other version fails the test: it never passes unrun.
 *
 * Env: SCHEMATHESIS_MAX_EXAMPLES (default 25), SCHEMATHESIS_MAX_TIME seconds (default 25 per
 * service), SCHEMATHESIS_BIN (an `st` of your own). `test/fuzz/README.md` has the long run.
 */
import * as assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { freePorts, stopProcess } from '../../support/process.ts';
import { pinnedVersion, provisionPythonTools } from '../../support/python-tools.ts';

export const SCHEMATHESIS_VERSION = pinnedVersion('schemathesis');
const MAX_EXAMPLES = Number(process.env.SCHEMATHESIS_MAX_EXAMPLES ?? 25);
const MAX_TIME = Number(process.env.SCHEMATHESIS_MAX_TIME ?? 25);
const READY_TIMEOUT_MS = 30_000;

/** Every check; `schemathesis.toml` says why one is off and which statuses are rejections. */
const CONFIG = fileURLToPath(new URL('./schemathesis.toml', import.meta.url));

export interface RunningService {
  readonly base: string;
  readonly child: ChildProcess;
  /** What the service wrote, for a failure message. */
  output(): string;
  stop(): Promise<void>;
}

/** Starts `node bin/streamfold.js <args>` with `env` and waits until `readyPath` answers 200. */
export async function startStreamfold(
  args: readonly string[],
  env: Record<string, string>,
  readyPath = '/-/ready',
): Promise<RunningService> {
  const port = env.HTTP_PORT ?? String((await freePorts(1))[0]);
  const child = spawn(process.execPath, ['bin/streamfold.js', ...args], {
    env: { PATH: process.env.PATH, LOG_LEVEL: 'warn', DELAY_SHUTDOWN_SECONDS: '0', ...env, HTTP_PORT: port },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const killOnExit = () => child.pid && process.kill(-child.pid, 'SIGKILL');
  process.once('exit', killOnExit);
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited ${child.exitCode}:\n${output}`);
    const status = await fetch(`${base}${readyPath}`).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) break;
    if (Date.now() > deadline) throw new Error(`${args.join(' ')} not ready in 30 s:\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    base,
    child,
    output: () => output,
    stop: async () => {
      process.removeListener('exit', killOnExit);
      await stopProcess(child);
    },
  };
}

export interface SchemathesisResult {
  /** Test cases Schemathesis generated and sent (its summary's "N generated"). */
  readonly requests: number;
  readonly output: string;
}

let bin: Promise<string> | undefined;

/** `SCHEMATHESIS_BIN` (the runner's virtualenv, or one's own), else the cached virtualenv's `st`. */
function schemathesisBin(): Promise<string> {
  const given = process.env.SCHEMATHESIS_BIN;
  bin ??= given
    ? Promise.resolve(given)
    : provisionPythonTools().then((tools) => {
        console.log(`  ${tools.line}`);
        return tools.bin('st');
      });
  return bin;
}

/** Throws, saying where it looked, when the Schemathesis CLI is missing or not the pinned version. */
export async function requireSchemathesis(): Promise<string> {
  const st = await schemathesisBin();
  let version: string;
  try {
    version = (await promisify(execFile)(st, ['--version'])).stdout;
  } catch (error) {
    throw new Error(
      `Schemathesis does not run ("${st}": ${(error as Error).message.split('\n')[0]}): unset SCHEMATHESIS_BIN to use the virtualenv the tests provision`,
    );
  }
  if (!version.includes(SCHEMATHESIS_VERSION))
    throw new Error(
      `Schemathesis ${SCHEMATHESIS_VERSION} expected (.ci/requirements.txt), ${st} is: ${version.trim()}`,
    );
  return st;
}

/**
 * Runs `st run` against `schemaUrl` (requests to `base`) and throws with its failures unless
 * every check passed. `args` adds headers, phases, or excluded operations.
 */
export async function schemathesis(
  schemaUrl: string,
  base: string,
  args: readonly string[] = [],
): Promise<SchemathesisResult> {
  const st = await requireSchemathesis();
  const command = [
    '--config-file',
    CONFIG,
    'run',
    schemaUrl,
    '--url',
    base,
    '--max-examples',
    String(MAX_EXAMPLES),
    '--max-time',
    String(MAX_TIME),
    '--max-response-time',
    '5',
    '--request-timeout',
    '10',
    '--workers',
    '1',
    '--seed',
    process.env.SCHEMATHESIS_SEED ?? '1',
    '--output-truncate',
    'false',
    ...args,
  ];
  const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve) => {
    // Its crash store and cache are written under the working directory: not the checkout's.
    const child = spawn(st, command, {
      cwd: mkdtempSync(join(tmpdir(), 'schemathesis-')),
      env: { ...process.env, NO_COLOR: '1', SCHEMATHESIS_HOOKS: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let text = '';
    child.stdout.on('data', (chunk: Buffer) => (text += chunk));
    child.stderr.on('data', (chunk: Buffer) => (text += chunk));
    child.on('close', (exit) => resolve({ code: exit, output: text }));
  });
  const requests = Number(/(\d+) generated/.exec(output)?.[1] ?? 0);
  console.log(`  schemathesis ${st} ${command.join(' ')}\n  → ${requests} requests, exit ${code}`);
  if (code !== 0) throw new Error(`Schemathesis failed (exit ${code}):\n${output}`);
  return { requests, output };
}

/**
 * Schemathesis against `service` and its own document at `/documentation/json` (`args` as for
 * `schemathesis`): a failure carries what the service wrote, headed `--- <name> output ---`, and
 * a run that generated no request fails too.
 */
export async function checkService(
  service: RunningService,
  name: string,
  args: readonly string[] = [],
): Promise<void> {
  const { base } = service;
  const { requests } = await schemathesis(`${base}/documentation/json`, base, args).catch((error: Error) => {
    throw new Error(`${error.message}\n--- ${name} output ---\n${service.output()}`);
  });
  assert.ok(requests > 0, 'no request was generated');
}
