/**
 * Log files of the stand-ins a test file starts (Mokapi, jongodb, Redis). Each stand-in writes
 * its own output straight to a file in `STREAMFOLD_TEST_LOG_DIR`, which the test runner sets per
 * file: when the file fails, the runner prints the last lines of each log under the failure.
 * Outside the runner the logs go to a temporary folder, kept (and named) only if the process fails.
 *
 * @example
 *   const log = standInLog('mokapi');
 *   const child = spawnLogged(bin, args, log);   // test/support/process.ts
 *   if (/kafka panic/.test(log.text())) …;
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface StandInLog {
  readonly path: string;
  /** The whole log as written so far. */
  text(): string;
  /** The last `count` lines. */
  tail(count: number): string;
}

export const TAIL_LINES = 30;

let ownDir: string | undefined;
let counter = 0;

function logDir(): string {
  const fromRunner = process.env.STREAMFOLD_TEST_LOG_DIR;
  if (fromRunner) {
    mkdirSync(fromRunner, { recursive: true });
    return fromRunner;
  }
  if (!ownDir) {
    const dir = mkdtempSync(join(tmpdir(), 'streamfold-test-logs-'));
    ownDir = dir;
    process.once('exit', (code) => {
      if (code === 0 && !process.exitCode) rmSync(dir, { recursive: true, force: true });
      else process.stderr.write(`stand-in logs kept in ${dir}\n`);
    });
  }
  return ownDir;
}

/** A new log file for one stand-in process, named `<name>-<n>.log`. */
export function standInLog(name: string): StandInLog {
  const path = join(logDir(), `${name}-${process.pid}-${++counter}.log`);
  return { path, text: () => readLog(path), tail: (count) => tailOf(readLog(path), count) };
}

function readLog(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

export function tailOf(text: string, count: number): string {
  const lines = text.trimEnd().split('\n');
  return lines.slice(-count).join('\n');
}

/** Every log in `dir` with its last `count` lines, for the runner's failure report. */
export function logTails(dir: string, count = TAIL_LINES): { name: string; tail: string }[] {
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    return [];
  }
  return names.map((name) => ({ name, tail: tailOf(readLog(join(dir, name)), count) }));
}
