/** Instances that stop talking: stale, then gone, then forgotten. */
import { spawn } from 'node:child_process';
import * as assert from 'uvu/assert';
import { instanceStatus } from '../../../../engine/controlplane/server/liveness.ts';
import { test } from '../../../support/suite.ts';
import { CONFIG } from '../engine-harness.ts';
import { waitFor } from '../support.ts';
import { startConsole } from './support.ts';

const LIVENESS = { staleAfterMs: 1000, goneAfterMs: 3000, forgetAfterMs: 2000 };

test('status: live while connected and heard from, stale when silent or disconnected, gone after goneAfterMs', () => {
  assert.is(instanceStatus(true, 0, 999, LIVENESS), 'live');
  assert.is(instanceStatus(true, 0, 1000, LIVENESS), 'stale', 'connected but silent');
  assert.is(instanceStatus(false, 0, 10, LIVENESS), 'stale', 'its stream ended');
  assert.is(instanceStatus(false, 0, 3000, LIVENESS), 'gone');
});

test('an engine process killed turns stale, then gone, then is forgotten; changes to it answer 409', async () => {
  const cp = await startConsole({ liveness: LIVENESS });
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'test/engine/controlplane/server/engine-process.ts', cp.grpcAddress],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  try {
    await waitFor('the live instance', async () => (await cp.engine(CONFIG.id))?.status === 'live');
    child.kill('SIGKILL');
    const stale = await waitFor('stale', async () => {
      const engine = await cp.engine(CONFIG.id);
      return engine?.status === 'stale' && engine;
    });
    assert.is(stale.instances[0]?.connected, false);
    const refused = await cp.post(`/api/engines/${CONFIG.id}/nodes/customers/pause`);
    assert.is(refused.status, 409);
    assert.match(String(refused.body.message), /no instance of engine "cpEngine01" is connected/);
    await waitFor('gone', async () => (await cp.engine(CONFIG.id))?.status === 'gone');
    await waitFor('forgotten', async () => (await cp.view()).engines.length === 0);
  } finally {
    child.kill('SIGKILL');
    await cp.close();
  }
});

test.run();
