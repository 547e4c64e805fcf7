/**
 * The Python tools' virtualenv (`python-tools.ts`) in a cache folder of the test's own, with a
 * requirements file that installs nothing (no PyPI needed; a virtualenv all the same): three
 * processes provisioning at once make one virtualenv and all use it; a later call finds it
 * cached; a lock left by a dead process does not block; a killed build's folder is removed.
 */
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from './suite.ts';

const MODULE = resolve('test/support/python-tools.ts');

interface Provisioned {
  readonly line: string;
  readonly dir: string;
  readonly st: string;
}

/** `provisionPythonTools(requirements)` in a process of its own, with `cache` as XDG_CACHE_HOME. */
function provision(cache: string, requirements: string): Promise<Provisioned> {
  const script = `const m = await import(${JSON.stringify(MODULE)});
const t = await m.provisionPythonTools(${JSON.stringify(requirements)});
console.log(JSON.stringify({ line: t.line, dir: t.dir, st: t.bin('st') }));`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    env: { ...process.env, XDG_CACHE_HOME: cache },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d));
  child.stderr.on('data', (d: Buffer) => (err += d));
  return new Promise((done, fail) =>
    child.on('close', (code) =>
      code === 0 ? done(JSON.parse(out)) : fail(new Error(`exit ${code}: ${err}`)),
    ),
  );
}

function scratch(): { cache: string; requirements: string; entries: () => string[] } {
  const root = mkdtempSync(join(tmpdir(), 'streamfold-python-tools-'));
  const requirements = join(root, 'requirements.txt');
  writeFileSync(requirements, '# installs nothing\n');
  const cache = join(root, 'cache');
  return {
    cache,
    requirements,
    entries: () =>
      existsSync(join(cache, 'streamfold')) ? readdirSync(join(cache, 'streamfold')).sort() : [],
  };
}

test('three runs at once: one makes the virtualenv, the others wait for it; later it is cached', async () => {
  const s = scratch();
  try {
    const runs = await Promise.all([1, 2, 3].map(() => provision(s.cache, s.requirements)));
    const lines = runs.map((r) => r.line.replace(/ \d+\.\d s/, ' N s'));
    assert.equal(lines.filter((l) => l.includes('virtualenv created in N s')).length, 1, lines.join('\n'));
    assert.equal(new Set(runs.map((r) => r.dir)).size, 1, 'all use the same one');
    assert.ok(existsSync(join(runs[0]!.dir, 'bin', 'python')));
    const [link, venv, ...rest] = s.entries();
    assert.deepEqual(rest, [], 'one virtualenv and its link, no lock or half-made folder left');
    assert.match(link!, /^python-tools-[0-9a-f]{12}$/);
    assert.equal(venv, `${link}.${runs[0]!.dir.split('.').at(-1)}`);
    const again = await provision(s.cache, s.requirements);
    assert.match(again.line, /^Python tools \(none\): cached virtualenv \(checked in \d+\.\d s\), /);
    assert.equal(again.dir, runs[0]!.dir);
  } finally {
    rmSync(join(s.cache, '..'), { recursive: true, force: true });
  }
});

test('a lock and a half-made virtualenv left by a killed run neither block nor stay', async () => {
  const s = scratch();
  try {
    const first = await provision(s.cache, s.requirements);
    const [link] = s.entries();
    const dead = spawnSync('true').pid;
    // What a run killed while building leaves: its lock, its unfinished folder, no link.
    rmSync(join(s.cache, 'streamfold', link!));
    rmSync(first.dir, { recursive: true });
    writeFileSync(join(s.cache, 'streamfold', `${link}.lock`), `${dead}\n`);
    mkdirSync(join(s.cache, 'streamfold', `${link}.${dead}-abcdef`, 'bin'), { recursive: true });
    const after = await provision(s.cache, s.requirements);
    assert.match(after.line, /virtualenv created in/);
    assert.deepEqual(
      s.entries(),
      [link, `${link}.${after.dir.split('.').at(-1)}`].sort(),
      'the stale lock and the unfinished folder are gone',
    );
  } finally {
    rmSync(join(s.cache, '..'), { recursive: true, force: true });
  }
});

test.run();
