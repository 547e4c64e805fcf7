/**
 * The Python tools the tests run (`.ci/requirements.txt`: Schemathesis), provisioned by the tests
 * themselves as the Kafka jars are: a virtualenv made once (`python3 -m venv`, then
 * `pip install -r .ci/requirements.txt` from PyPI), cached under `~/.cache/streamfold/` and used
 * again while it works. Nothing is installed outside it.
 *
 * - Keyed by the requirements' text and the Python it was made with (version and real
 *   executable): changing either makes a new one, and one whose Python is gone is made again.
 * - Concurrency-safe: the test runner provisions once before any file starts, but a file run alone
 *   provisions too, and two runs may start together. A lock file (created exclusively, holding the
 *   holder's pid, taken over when that process is dead) lets one process build while the others
 *   wait; each build goes into a folder of its own, published by renaming a symlink onto
 *   `python-tools-<key>` (atomic), so nobody ever sees half a virtualenv, even if two build at once.
 *   The folder never moves afterwards: a virtualenv's scripts name their Python by absolute path.
 * - Bounded: the whole provisioning, waits included, gives up after 10 minutes
 *   (`STREAMFOLD_PYTHON_TOOLS_TIMEOUT_MS`), with pip's last lines.
 *
 * @example
 *   const tools = await provisionPythonTools();
 *   console.log(tools.line); // what it did and how long it took
 *   spawn(tools.bin('st'), ['--version']);
 */
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { cacheDir } from '../../local-kafka/classpath.ts';

const run = promisify(execFile);

/** The pinned Python tools, shared with CI. */
export const REQUIREMENTS = fileURLToPath(new URL('../../.ci/requirements.txt', import.meta.url));
const TIMEOUT_MS = Number(process.env.STREAMFOLD_PYTHON_TOOLS_TIMEOUT_MS ?? 600_000);
/** Written last into a finished virtualenv: a folder without it is a build that did not finish. */
const MARKER = '.streamfold-provisioned.json';
const POLL_MS = 250;

export interface PythonTools {
  /** The virtualenv's real folder. */
  readonly dir: string;
  /** One line: what provisioning did and how long it took. */
  readonly line: string;
  /** The path of one of its commands, e.g. `bin('st')`. */
  bin(name: string): string;
}

export interface PythonIdentity {
  /** e.g. `3.11.7`. */
  readonly version: string;
  /** The interpreter's real path (through pyenv's shims and symlinks). */
  readonly executable: string;
}

/** What is wrong with the machine's python3, for the runner's list of missing tools. */
export class PythonMissingError extends Error {
  override readonly name = 'PythonMissingError';
}

/** python3's version and real executable; throws a PythonMissingError naming what is missing. */
export async function pythonIdentity(): Promise<PythonIdentity> {
  // Debian ships venv and ensurepip apart from python3 (python3-venv): both are needed.
  const script =
    'import os, sys, venv, ensurepip; print(sys.version.split()[0]); print(os.path.realpath(sys.executable))';
  try {
    const { stdout } = await run('python3', ['-c', script], { timeout: 20_000 });
    const [version = '', executable = ''] = stdout.trim().split('\n');
    return { version, executable };
  } catch (error) {
    const failure = error as NodeJS.ErrnoException & { stderr?: string };
    if (failure.code === 'ENOENT') throw new PythonMissingError('no python3 on the PATH');
    const stderr = failure.stderr ?? '';
    if (/No module named '?(venv|ensurepip)/.test(stderr))
      throw new PythonMissingError('python3 cannot make a virtualenv (no venv module: python3-venv)');
    throw new PythonMissingError(`python3 fails: ${(stderr || failure.message).trim().split('\n').at(-1)}`);
  }
}

/** The requirement lines (`name==version`), comments and blanks left out. */
export function requirementLines(requirements = REQUIREMENTS): string[] {
  return readFileSync(requirements, 'utf8')
    .split('\n')
    .map((line) => line.replace(/#.*/, '').trim())
    .filter((line) => line !== '');
}

/** The version the requirements pin for `name` (`name==version`). */
export function pinnedVersion(name: string, requirements = REQUIREMENTS): string {
  const line = requirementLines(requirements).find((l) =>
    l.toLowerCase().startsWith(`${name.toLowerCase()}==`),
  );
  if (!line) throw new Error(`${requirements}: no ${name}==<version> line`);
  return line.slice(name.length + 2);
}

/** The cached virtualenv of `requirements`, made first if need be (see the top of this file). */
export async function provisionPythonTools(requirements = REQUIREMENTS): Promise<PythonTools> {
  const started = Date.now();
  const seconds = () => ((Date.now() - started) / 1000).toFixed(1);
  const python = await pythonIdentity();
  const text = readFileSync(requirements, 'utf8');
  const key = createHash('sha256')
    .update(`${text}\n${python.version}\n${python.executable}`)
    .digest('hex')
    .slice(0, 12);
  const root = cacheDir();
  const link = join(root, `python-tools-${key}`);
  const lock = `${link}.lock`;
  const what = `Python tools (${requirementLines(requirements).join(', ') || 'none'})`;
  const tools = (dir: string, did: string): PythonTools => ({
    dir,
    line: `${what}: ${did}, ${shown(link)}`,
    bin: (name) => join(dir, 'bin', name),
  });
  let found = usable(link);
  if (found) return tools(found, `cached virtualenv (checked in ${seconds()} s)`);
  mkdirSync(root, { recursive: true });
  const deadline = started + TIMEOUT_MS;
  for (;;) {
    if (takeLock(lock)) {
      try {
        found = usable(link);
        if (found) return tools(found, `virtualenv made by a concurrent run (waited ${seconds()} s)`);
        removeUnfinishedBuilds(root, key);
        const dir = await build(join(root, `python-tools-${key}.${process.pid}-${nonce()}`), {
          requirements,
          text,
          python,
          deadline,
        });
        publish(link, dir);
        return tools(dir, `virtualenv created in ${seconds()} s (Python ${python.version}, pip from PyPI)`);
      } finally {
        releaseLock(lock);
      }
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    found = usable(link);
    if (found) return tools(found, `virtualenv made by a concurrent run (waited ${seconds()} s)`);
    if (Date.now() > deadline)
      throw new Error(`${what}: not provisioned within ${TIMEOUT_MS} ms (another run holds ${lock})`);
  }
}

/** The finished virtualenv the link points to, if its Python is still there. */
function usable(link: string): string | undefined {
  try {
    const dir = realpathSync(link);
    // `bin/python` is a symlink to the interpreter it was made with: gone, the venv is dead.
    if (existsSync(join(dir, MARKER)) && existsSync(join(dir, 'bin', 'python'))) return dir;
  } catch {
    // No link yet, or a dangling one.
  }
  return undefined;
}

interface BuildOptions {
  readonly requirements: string;
  readonly text: string;
  readonly python: PythonIdentity;
  readonly deadline: number;
}

async function build(dir: string, { requirements, text, python, deadline }: BuildOptions): Promise<string> {
  const left = () => Math.max(1000, deadline - Date.now());
  try {
    // The interpreter the key was computed from, not whatever a pyenv shim picks in another folder.
    await run(python.executable, ['-m', 'venv', dir], { timeout: left() });
    await run(
      join(dir, 'bin', 'python'),
      ['-m', 'pip', 'install', '--disable-pip-version-check', '--no-input', '-q', '-r', requirements],
      { timeout: left(), maxBuffer: 16 * 1024 * 1024 },
    );
    writeFileSync(join(dir, MARKER), `${JSON.stringify({ requirements: text, python }, null, 2)}\n`);
    return dir;
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    const failure = error as Error & { stdout?: string; stderr?: string; killed?: boolean };
    const output = `${failure.stdout ?? ''}${failure.stderr ?? ''}`.trim().split('\n').slice(-15).join('\n');
    const why = failure.killed ? `timed out after ${TIMEOUT_MS} ms` : failure.message.split('\n')[0];
    throw new Error(`making the Python tools' virtualenv failed (${why}):\n${output}`);
  }
}

/** Points `link` at `dir` in one rename: readers see the old target or the new, never neither. */
function publish(link: string, dir: string): void {
  const temporary = `${link}.${process.pid}-${nonce()}.link`;
  symlinkSync(basename(dir), temporary);
  renameSync(temporary, link);
}

/** The folders and links of builds whose process died before they finished (a killed run). */
function removeUnfinishedBuilds(root: string, key: string): void {
  const mine = new RegExp(`^python-tools-${key}\\.(\\d+)-[0-9a-f]+(\\.link)?$`);
  for (const name of readdirSync(root)) {
    const pid = mine.exec(name)?.[1];
    const path = join(root, name);
    if (pid && !alive(Number(pid)) && !existsSync(join(path, MARKER)))
      rmSync(path, { recursive: true, force: true });
  }
}

/** Creates the lock if nobody holds it; removes it if its holder is dead (the next try takes it). */
function takeLock(lock: string): boolean {
  try {
    const fd = openSync(lock, 'wx');
    writeSync(fd, `${process.pid}\n`);
    closeSync(fd);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  let holder = 0;
  try {
    holder = Number(readFileSync(lock, 'utf8').trim());
  } catch {
    return false; // released meanwhile
  }
  // An empty file is a holder between creating and writing it: alive.
  if (holder > 0 && !alive(holder)) rmSync(lock, { force: true });
  return false;
}

function releaseLock(lock: string): void {
  try {
    if (Number(readFileSync(lock, 'utf8').trim()) === process.pid) rmSync(lock, { force: true });
  } catch {
    // Already gone.
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const nonce = () => randomBytes(3).toString('hex');

const shown = (path: string) => path.replace(homedir(), '~');
