/**
 * Test runner: runs every `*.test.ts` file (uvu suites) in its own Node process, two at a time,
 * each with a time limit, and ends with one line `N passed, N failed[, N skipped]`.
 *
 * Usage: npm test [-- <substring> ...]   (only files whose path contains a substring)
 * Env:   TEST_CONCURRENCY (default 2), TEST_FILE_TIMEOUT_MS (default 300000)
 *
 * One process per file isolates the suites that start brokers and databases, and a crash or a
 * hang counts as a failure of that file instead of stopping the run.
 */
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOTS = ['test'];
const concurrency = Number(process.env.TEST_CONCURRENCY ?? 2);
const fileTimeoutMs = Number(process.env.TEST_FILE_TIMEOUT_MS ?? 300_000);
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
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : findTestFiles(path);
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

function runFile(file: string): Promise<FileResult> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', file], {
      env: { ...process.env, FORCE_COLOR: '0', NODE_ENV: 'test' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      // The whole process group: suites start brokers and databases as children.
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    }, fileTimeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      const ms = Date.now() - started;
      const totals = parseTotals(output);
      const header = `\n── ${file} (${(ms / 1000).toFixed(1)}s)`;
      process.stdout.write(`${header}\n${output.trimEnd()}\n`);
      if (timedOut) process.stdout.write(`✘ ${file}: killed after ${fileTimeoutMs} ms\n`);
      if (!totals) {
        process.stdout.write(`✘ ${file}: exited with code ${code} before reporting results\n`);
        resolve({ file, passed: 0, failed: 1, skipped: 0, ms });
        return;
      }
      let failed = totals.total - totals.passed;
      // Suites passed but the process failed afterwards (unhandled rejection, open-handle crash).
      if (failed === 0 && (code !== 0 || timedOut)) failed = 1;
      resolve({ file, passed: totals.passed, failed, skipped: totals.skipped, ms });
    });
  });
}

async function main(): Promise<void> {
  const files = ROOTS.flatMap(findTestFiles)
    .map((f) => relative(process.cwd(), f))
    .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)))
    .sort();
  const queue = [...files];
  const results: FileResult[] = [];
  await Promise.all(
    Array.from({ length: Math.max(1, concurrency) }, async () => {
      for (let file = queue.shift(); file; file = queue.shift()) results.push(await runFile(file));
    }),
  );
  const sum = (pick: (r: FileResult) => number) => results.reduce((n, r) => n + pick(r), 0);
  const passed = sum((r) => r.passed);
  const failed = sum((r) => r.failed);
  const skipped = sum((r) => r.skipped);
  process.stdout.write('\n');
  for (const r of results.filter((x) => x.failed > 0)) process.stdout.write(`FAILED ${r.file}\n`);
  if (files.length === 0) process.stdout.write('no test files matched\n');
  process.stdout.write(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
  process.exitCode = failed > 0 || files.length === 0 ? 1 : 0;
}

await main();
