/** `streamfold controlplane` as a user starts it: flags, the loopback rule, graceful stop. */
import { spawn, spawnSync } from 'node:child_process';
import * as assert from 'uvu/assert';
import { test } from '../../support/suite.ts';
import { waitFor } from '../controlplane/support.ts';

const cli = (args: string[], env: Record<string, string> = {}) =>
  spawnSync(process.execPath, ['bin/streamfold.js', 'controlplane', ...args], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', ...env },
    timeout: 30_000,
  });

test('starts on the given addresses, serves the console, stops on SIGTERM with exit 0', async () => {
  const child = spawn(process.execPath, ['bin/streamfold.js', 'controlplane', '--grpc', '127.0.0.1:0'], {
    env: { PATH: process.env.PATH ?? '', STREAMFOLD_CONTROLPLANE_HTTP: '127.0.0.1:0', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += String(chunk);
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  try {
    const url = await waitFor(
      'the startup line',
      () => /console at (http:\/\/127\.0\.0\.1:\d+\/)/.exec(stderr)?.[1],
    );
    assert.match(stderr, /engines connect to 127\.0\.0\.1:\d+;/);
    const page = await fetch(url);
    assert.is(page.status, 200);
    assert.match(await page.text(), /<title>streamfold control plane<\/title>/);
    assert.is((await fetch(`${url}-/healthz`)).status, 200);
  } finally {
    child.kill('SIGTERM');
  }
  assert.is(await exited, 0);
});

test('beyond loopback without a token it exits 1 saying why', () => {
  const refused = cli(['--grpc', '127.0.0.1:0', '--http', '0.0.0.0:0']);
  assert.is(refused.status, 1);
  assert.match(
    refused.stderr,
    /bound to 0\.0\.0\.0 it needs a token \(STREAMFOLD_CONSOLE_TOKEN or --token\)/,
  );
});

test('bad flags are usage errors (exit 2)', () => {
  const badHttp = cli(['--http', 'localhost']);
  assert.is(badHttp.status, 2);
  assert.match(badHttp.stderr, /--http must be host:port \(got "localhost"\)/);
  const badOrder = cli(['--stale-after', '5000', '--gone-after', '1000']);
  assert.is(badOrder.status, 2);
  assert.match(badOrder.stderr, /--gone-after must be longer than --stale-after/);
  const help = cli(['--help']);
  assert.is(help.status, 0);
  assert.match(help.stdout, /STREAMFOLD_CONSOLE_TOKEN/);
});

test.run();
