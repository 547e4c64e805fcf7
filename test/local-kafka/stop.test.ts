/**
 * Stopping a node whose controlled shutdown hangs (the last node of three stopped together, left
 * without a quorum): it is killed after `stopTimeoutMs`, and `stop()` settles only once it is gone,
 * in a process where nothing else keeps Node alive (a test file's `after` hook, a script).
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from '../support/suite.ts';

/** A JVM start on two busy cores (90 s), then the stop and its kill. */
const RUN_MS = 150_000;

test('a node that does not stop on SIGTERM is killed after stopTimeoutMs, and the process stays alive until stop() settles', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'streamfold-local-kafka-stop-'));
  const script = join(dir, 'stop.mts');
  // SIGSTOP freezes the JVM: the SIGTERM stays pending, only the SIGKILL ends it.
  writeFileSync(
    script,
    `import { startLocalKafka } from ${JSON.stringify(resolve('local-kafka/cluster.ts'))};
const kafka = await startLocalKafka({ stopTimeoutMs: 1000, logFile: () => ${JSON.stringify(join(dir, 'node.log'))} });
const [node] = kafka.nodes;
process.kill(node.pid(), 'SIGSTOP');
const started = Date.now();
await kafka.stop();
console.log(JSON.stringify({ stoppedAfterMs: Date.now() - started, running: node.running() }));
`,
  );
  const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d));
  child.stderr.on('data', (d: Buffer) => (err += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), RUN_MS);
  try {
    const [code] = (await once(child, 'exit')) as [number | null];
    assert.equal(code, 0, `the script exits normally, not with stop() unsettled\n${out}${err}`);
    const result = JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as {
      stoppedAfterMs: number;
      running: boolean;
    };
    assert.equal(result.running, false, 'the node is gone');
    assert.ok(result.stoppedAfterMs >= 1000, `killed after stopTimeoutMs (${result.stoppedAfterMs} ms)`);
  } finally {
    clearTimeout(timer);
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
