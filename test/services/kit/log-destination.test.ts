import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { createServiceLogger } from '../../../services/kit/index.ts';
import { test } from '../../support/suite.ts';

function recordingSink() {
  const writes: string[] = [];
  return { writes, sink: { write: (chunk: string) => writes.push(chunk) } };
}

test('service logger: lines of a burst leave in one write, within 100 ms, as JSON lines with the service', async () => {
  const { writes, sink } = recordingSink();
  const logger = createServiceLogger({ service: 'svc', level: 'info', sink });
  for (let i = 0; i < 10; i++) logger.info({ i }, 'line');
  logger.debug('below the level');
  assert.equal(writes.length, 0, 'nothing written while the burst runs');
  await sleep(150);
  assert.equal(writes.length, 1);
  const lines = writes[0]!
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.deepEqual(
    lines.map((l) => [l.service, l.i, l.msg, l.level]),
    Array.from({ length: 10 }, (_, i) => ['svc', i, 'line', 30]),
  );
});

test('service logger: 16 KiB pending are written at once; flush() writes the rest', async () => {
  const { writes, sink } = recordingSink();
  const logger = createServiceLogger({ service: 'svc', level: 'info', sink });
  const text = 'x'.repeat(1000);
  for (let i = 0; i < 40; i++) logger.info({ text }, 'big');
  assert.ok(writes.length >= 2, `${writes.length} writes`);
  assert.ok(writes.every((w) => w.length >= 16 * 1024));
  logger.flush();
  const lines = writes.join('').trimEnd().split('\n');
  assert.equal(lines.length, 40, 'every line, none twice');
});

const child = fileURLToPath(new URL('./fixtures/log-exit.ts', import.meta.url));

test('service logger: lines pending when the process exits are written', () => {
  const run = spawnSync(process.execPath, ['--import', 'tsx', child], { encoding: 'utf8', timeout: 20_000 });
  assert.equal(run.status, 3, run.stderr);
  const lines = run.stdout
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as { msg: string });
  assert.deepEqual(
    lines.map((l) => l.msg),
    ['first', 'last words'],
  );
});

test.run();
