/**
 * Test runner: runs every `*.test.ts` file (uvu suites) in its own Node process, three at a time,
 * each with a time limit, and ends with one line `N passed, N failed[, N skipped]`.
 *
 * Usage: npm test [-- <substring> ...]   (only files whose path contains a substring)
 *
 * Files start longest first, by the durations of the last run on this machine
 * (`support/file-order.ts`), so that the long ones overlap the short ones.
 * Env:   TEST_CONCURRENCY (default 3), TEST_FILE_TIMEOUT_MS (default 300000)
 *
 * First, it checks the tools the run needs and cannot provision (`support/tools.ts`: Java,
 * Maven, redis-server, Python 3, Chromium for the browser test) and stops at once, naming every
 * missing one and the install line. Then it provisions what it can, once, before any file starts:
 * the Python tools of `.ci/requirements.txt` when a Schemathesis file runs
 * (`support/python-tools.ts`, a cached virtualenv; its `st` handed to the files in
 * `SCHEMATHESIS_BIN`), while the Kafka jars come with the broker (`local-kafka/classpath.ts`).
 *
 * When the tests run on the local Apache Kafka (`support/backends.ts`), the runner starts one
 * broker for the whole run and hands its address to every file, as a CI suite against a shared
 * cluster does; each file creates its own uniquely named topics there.
 *
 * One process per file isolates the suites that start brokers and databases, and a crash or a
 * hang counts as a failure of that file instead of stopping the run. No failure is silent: under
 * a failed file come the last lines of each stand-in it started (`test/support/stand-in-log.ts`),
 * and a file killed at the time limit is told with the test or hook it was running
 * (`test/support/suite.ts`).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { type LocalKafka, startLocalKafka } from '../local-kafka/cluster.ts';
import { type Backends, backends, describeBackends, SHARED_KAFKA_ENV } from './support/backends.ts';
import { longestFirst, recordDurations } from './support/file-order.ts';
import { provisionPythonTools } from './support/python-tools.ts';
import { logTails, TAIL_LINES, tailOf } from './support/stand-in-log.ts';
import { missingTools, missingToolsMessage } from './support/tools.ts';

const ROOTS = ['test'];
/** The files that run Schemathesis (`fuzz/schemathesis/harness.ts`), from the Python tools. */
const SCHEMATHESIS_FILES = /(^|\/)test\/fuzz\/schemathesis\//;
const concurrency = Number(process.env.TEST_CONCURRENCY ?? 3);
const fileTimeoutMs = Number(process.env.TEST_FILE_TIMEOUT_MS ?? 300_000);
/**
 * How long a file's process may live on after printing its results. uvu prints them after the
 * last `after` hook, so a process still running then is held by something left open (a client
 * not disconnected, a server, a timer): a defect, told at once rather than at the time limit.
 */
const exitGraceMs = 20_000;
const filters = process.argv.slice(2);

interface FileResult {
  file: string;
  passed: number;
  failed: number;
  skipped: number;
  ms: number;
}

function findTestFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory())
      return name === 'node_modules' || name === 'fixtures' ? [] : findTestFiles(path);
    return name.endsWith('.test.ts') ? [path] : [];
  });
}

function parseTotals(output: string): { total: number; passed: number; skipped: number } | null {
  const total = /Total:\s+(\d+)/.exec(output);
  const passed = /Passed:\s+(\d+)/.exec(output);
  const skipped = /Skipped:\s+(\d+)/.exec(output);
  if (!total || !passed) return null;
  return { total: Number(total[1]), passed: Number(passed[1]), skipped: Number(skipped?.[1] ?? 0) };
}

function runFile(file: string, env: Record<string, string>): Promise<FileResult> {
  const started = Date.now();
  const work = mkdtempSync(join(tmpdir(), 'streamfold-test-'));
  const logDir = join(work, 'logs');
  const progressFile = join(work, 'progress');
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', file], {
      env: {
        ...process.env,
        ...env,
        FORCE_COLOR: '0',
        NODE_ENV: 'test',
        STREAMFOLD_TEST_LOG_DIR: logDir,
        STREAMFOLD_TEST_PROGRESS: progressFile,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    let timedOut = false;
    let lingered = false;
    // The whole process group: suites start brokers and databases as children.
    const kill = () => child.pid && process.kill(-child.pid, 'SIGKILL');
    let exitTimer: NodeJS.Timeout | undefined;
    const onOutput = (chunk: Buffer) => {
      output += chunk;
      exitTimer ??= parseTotals(output)
        ? setTimeout(() => {
            lingered = true;
            kill();
          }, exitGraceMs)
        : undefined;
    };
    child.stdout.on('data', onOutput);
    child.stderr.on('data', onOutput);
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, fileTimeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      clearTimeout(exitTimer);
      const ms = Date.now() - started;
      const totals = parseTotals(output);
      const lines = [`\n── ${file} (${(ms / 1000).toFixed(1)}s)`, output.trimEnd()];
      if (lingered)
        lines.push(
          `✘ ${file}: killed ${exitGraceMs} ms after reporting its results: something was left open (a client not disconnected, a server, a timer); last step "${lastStep(progressFile)}"`,
        );
      else if (timedOut) lines.push(`✘ ${file}: killed after ${fileTimeoutMs} ms ${running(progressFile)}`);
      let failed = totals ? totals.total - totals.passed : 1;
      if (!totals) lines.push(`✘ ${file}: exited with ${signal ?? `code ${code}`} before reporting results`);
      // Suites passed but the process failed afterwards (a failing after hook, an unhandled rejection).
      else if (failed === 0 && (code !== 0 || timedOut || lingered)) {
        failed = 1;
        lines.push(`✘ ${file}: all tests passed, but the process exited with ${signal ?? `code ${code}`}`);
      }
      if (failed > 0) lines.push(...standInTails(logDir));
      process.stdout.write(`${lines.join('\n')}\n`);
      rmSync(work, { recursive: true, force: true });
      resolve({ file, passed: totals?.passed ?? 0, failed, skipped: totals?.skipped ?? 0, ms });
    });
  });
}

/** The test or hook the file ran last, from the progress its suites write (`test/support/suite.ts`). */
function lastStep(progressFile: string): string {
  try {
    return readFileSync(progressFile, 'utf8').split('\n')[0] ?? '';
  } catch {
    return '(none)';
  }
}

/** What the file was running, from the progress its suites write (`test/support/suite.ts`). */
function running(progressFile: string): string {
  try {
    const [what, since] = readFileSync(progressFile, 'utf8').split('\n');
    const seconds = ((Date.now() - Number(since)) / 1000).toFixed(1);
    return `while running "${what}" (for ${seconds} s)`;
  } catch {
    return 'before its first test started';
  }
}

function standInTails(logDir: string): string[] {
  return logTails(logDir).map(
    ({ name, tail }) => `── last ${TAIL_LINES} lines of ${name}:\n${tail || '(empty)'}\n── end of ${name}`,
  );
}

/** The run's shared broker, when the tests run on the local Apache Kafka; its log is kept beside the run. */
async function sharedKafka(chosen: Backends): Promise<LocalKafka | undefined> {
  if (chosen.kafka.kind !== 'local' || chosen.kafka.address) return undefined;
  const started = Date.now();
  const logDir = mkdtempSync(join(tmpdir(), 'streamfold-test-kafka-'));
  const broker = await startLocalKafka({ logFile: () => join(logDir, 'kafka.log') });
  process.stdout.write(
    `Apache Kafka ${broker.kafkaVersion} at ${broker.bootstrap} for the whole run (ready in ${((Date.now() - started) / 1000).toFixed(1)} s; log ${broker.nodes[0]!.logFile})\n`,
  );
  return broker;
}

/**
 * `SCHEMATHESIS_BIN` for the files: the provisioned virtualenv's `st`, when a Schemathesis file
 * runs and the caller named none. Prints what provisioning did and how long it took.
 */
async function pythonTools(files: readonly string[]): Promise<Record<string, string>> {
  if (process.env.SCHEMATHESIS_BIN || !files.some((f) => SCHEMATHESIS_FILES.test(f))) return {};
  const tools = await provisionPythonTools();
  process.stdout.write(`${tools.line}\n`);
  return { SCHEMATHESIS_BIN: tools.bin('st') };
}

/** Stops the run before any file: `message`, then the runner's last line. */
function stopRun(message: string): void {
  process.stdout.write(`${message}\n0 passed, 1 failed\n`);
  process.exitCode = 1;
}

async function main(): Promise<void> {
  const files = ROOTS.flatMap(findTestFiles)
    .map((f) => relative(process.cwd(), f))
    .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)))
    .sort();
  const chosen = await backends();
  const kafkaProvided = chosen.kafka.kind === 'external' || chosen.kafka.kind === 'container';
  const missing = await missingTools({ files, kafkaProvided });
  if (missing.length > 0) return stopRun(missingToolsMessage(missing));
  // Without Java and Maven the tools check stopped the run: the runner never falls back to Mokapi.
  process.stdout.write(`${describeBackends(chosen)}\n`);
  // Side by side: the broker's JVM start and a first virtualenv both take tens of seconds.
  const [broker, python] = await Promise.allSettled([sharedKafka(chosen), pythonTools(files)]);
  const kafka = broker.status === 'fulfilled' ? broker.value : undefined;
  const failure = [broker, python].find((r) => r.status === 'rejected');
  if (failure) {
    await kafka?.stop();
    return stopRun(`${(failure as PromiseRejectedResult).reason}`);
  }
  const env: Record<string, string> = {
    ...(kafka ? { [SHARED_KAFKA_ENV]: kafka.bootstrap } : {}),
    ...(python.status === 'fulfilled' ? python.value : {}),
  };
  const queue = longestFirst(files);
  const results: FileResult[] = [];
  try {
    await Promise.all(
      Array.from({ length: Math.max(1, concurrency) }, async () => {
        for (let file = queue.shift(); file; file = queue.shift()) results.push(await runFile(file, env));
      }),
    );
  } finally {
    await kafka?.stop();
  }
  recordDurations(results);
  const sum = (pick: (r: FileResult) => number) => results.reduce((n, r) => n + pick(r), 0);
  const passed = sum((r) => r.passed);
  const failed = sum((r) => r.failed);
  const skipped = sum((r) => r.skipped);
  process.stdout.write('\n');
  if (kafka) {
    const log = kafka.nodes[0]!.logFile;
    // Kept (and its tail printed) when a file failed, else removed with its folder.
    if (failed > 0)
      process.stdout.write(
        `── last ${TAIL_LINES} lines of the shared broker's log (${log}, kept):\n${tailOf(readFileSync(log, 'utf8'), TAIL_LINES)}\n── end\n`,
      );
    else rmSync(dirname(log), { recursive: true, force: true });
  }
  for (const r of results.filter((x) => x.failed > 0).sort((a, b) => a.file.localeCompare(b.file))) {
    process.stdout.write(`FAILED ${r.file}\n`);
  }
  if (files.length === 0) process.stdout.write('no test files matched\n');
  process.stdout.write(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
  process.exitCode = failed > 0 || files.length === 0 ? 1 : 0;
}

await main();
