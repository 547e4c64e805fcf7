/**
 * The test runner (`test/run.ts`) on files written for the purpose in a scratch project: what it
 * prints when a hook fails, a test throws, a file hangs, and that it stays quiet when all pass.
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from '../support/suite.ts';
import { APT_INSTALL } from '../support/tools.ts';

const SUPPORT = resolve('test/support');
const RUNNER = resolve('test/run.ts');

interface Run {
  readonly output: string;
  readonly code: number | null;
}

/** Runs the runner in a scratch project holding `files` under its `test/` folder. */
async function runRunner(files: Record<string, string>, env: Record<string, string> = {}): Promise<Run> {
  const project = mkdtempSync(join(tmpdir(), 'streamfold-runner-'));
  try {
    symlinkSync(resolve('node_modules'), join(project, 'node_modules'));
    mkdirSync(join(project, 'test'));
    for (const [name, source] of Object.entries(files)) writeFileSync(join(project, 'test', name), source);
    const child = spawn(process.execPath, ['--import', 'tsx', RUNNER], {
      cwd: project,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk));
    const code = await new Promise<number | null>((done) => child.on('close', done));
    return { output, code };
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
}

const header = `import { suite, test } from '${SUPPORT}/suite.ts';\n`;

test('a failing before hook prints its error and stack, and the tail of the stand-in it started', async () => {
  const { output, code } = await runRunner({
    'broken.test.ts': `${header}import { startMongo } from '${SUPPORT}/mongo.ts';
let stop = async () => {};
test.before(async () => {
  stop = (await startMongo()).stop;
  throw new Error('the fixture broke');
});
test.after(() => stop());
test('one', () => {});
test('two', () => {});
test.run();
`,
  });
  assert.equal(code, 1);
  assert.match(output, /✘ before hook failed: Error: the fixture broke\n\s+at .*broken\.test\.ts:6/);
  assert.match(output, /── last 30 lines of jongodb-\d+-\d+\.log:\n(.|\n)*JONGODB_URI=/);
  assert.match(output, /FAILED test\/broken\.test\.ts\n0 passed, 2 failed\n$/);
});

test('a thrown non-Error, a failing after hook, and a passing file: each told, totals exact', async () => {
  const { output, code } = await runRunner({
    'a-string.test.ts': `${header}const s = suite('strings');
s('throws a string', () => { throw 'plain words'; });
s('passes', () => {});
s.run();
`,
    'b-after.test.ts': `${header}test('passes', () => {});
test.after(() => { throw new Error('cleanup broke'); });
test.run();
`,
    'c-fine.test.ts': `${header}test('passes', () => {});
test.run();
`,
  });
  assert.equal(code, 1);
  assert.match(output, /FAIL {2}strings {2}"throws a string"\n\s+non-Error thrown: 'plain words'/);
  assert.match(output, /✘ after hook failed: Error: cleanup broke/);
  assert.match(output, /✘ test\/b-after\.test\.ts: all tests passed, but the process exited with code 1/);
  assert.doesNotMatch(output, /last 30 lines/, 'no stand-in started, no log to show');
  assert.match(
    output,
    /FAILED test\/a-string\.test\.ts\nFAILED test\/b-after\.test\.ts\n3 passed, 2 failed\n$/,
  );
});

test('a file killed at the time limit names the test it was running', async () => {
  const { output, code } = await runRunner(
    {
      'hangs.test.ts': `${header}test('returns', () => {});
test('waits forever', () => new Promise(() => setInterval(() => {}, 1000)));
test.run();
`,
    },
    // Long enough for tsx to start the file on a busy machine.
    { TEST_FILE_TIMEOUT_MS: '12000' },
  );
  assert.equal(code, 1);
  assert.match(
    output,
    /✘ test\/hangs\.test\.ts: killed after 12000 ms while running "waits forever" \(for \d+\.\d s\)/,
  );
  assert.match(output, /exited with SIGKILL before reporting results/);
  assert.match(output, /0 passed, 1 failed\n$/);
});

test('tools the machine lacks stop the run at once: one message naming each, and the install line the README gives', async () => {
  const marker = join(mkdtempSync(join(tmpdir(), 'streamfold-runner-ran-')), 'ran');
  const started = Date.now();
  const { output, code } = await runRunner(
    {
      'browser.test.ts': `${header}import { chromium } from 'playwright-core';
test('would drive a browser', () => void chromium);
test.run();
`,
      'plain.test.ts': `${header}import { writeFileSync } from 'node:fs';
writeFileSync(${JSON.stringify(marker)}, 'ran');
test('runs', () => {});
test.run();
`,
    },
    {
      // A machine with none of them; Kafka not provided otherwise (no cluster, no Docker engine).
      PATH: '/nonexistent',
      CHROMIUM_PATH: '/nonexistent/chromium',
      KAFKA_BROKERS: '',
      STREAMFOLD_TEST_KAFKA: '',
      DOCKER_HOST: 'tcp://127.0.0.1:1',
    },
  );
  const ms = Date.now() - started;
  assert.equal(code, 1);
  assert.equal(
    output,
    `The tests need tools this machine lacks:
  ✘ Java 17: no java on the PATH
  ✘ Maven: no mvn on the PATH
  ✘ redis-server: not on the PATH
  ✘ Python 3: no python3 on the PATH
  ✘ Chromium: no /nonexistent/chromium, for the browser test
Install them (Debian, Ubuntu) with:
  ${APT_INSTALL}
0 passed, 1 failed
`,
  );
  assert.equal(existsSync(marker), false, 'no file ran');
  // Node and tsx starting on a busy machine included; the checks themselves take milliseconds.
  assert.ok(ms < 10_000, `stopped after ${ms} ms`);
  console.log(`  stopped ${ms} ms after the runner was started`);
  assert.ok(readFileSync('README.md', 'utf8').includes(APT_INSTALL), 'the quick start gives the same line');
});

test.run();
