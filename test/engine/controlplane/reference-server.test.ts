/** The reference control plane (`examples/controlplane/server.ts`) driving a control-plane client. */
import { type ChildProcess, spawn } from 'node:child_process';
import { Registry } from 'prom-client';
import { firstValueFrom } from 'rxjs';
import * as assert from 'uvu/assert';
import { createControlPlane, type EngineSample } from '../../../engine/controlplane/index.ts';
import { parseCommand } from '../../../examples/controlplane/commands.ts';
import { test } from '../../support/suite.ts';
import { capturingLogger, freePort, waitFor } from './support.ts';

const NODES = ['orders', 'customers'];
const source = async (): Promise<EngineSample> => ({
  windowMs: 1000,
  nodes: NODES.map((node) => ({
    node,
    messagesPerSecond: 2.5,
    partitions: [{ topic: node, partition: 0, committedOffset: 4, highWatermark: 7, lag: 3 }],
  })),
});

test('commands: pause, resume, resume-all, errors', () => {
  assert.equal(parseCommand(' pause  orders customers '), {
    kind: 'set',
    state: 'NODE_STATE_PAUSED',
    nodes: ['orders', 'customers'],
  });
  assert.equal(parseCommand('resume orders'), {
    kind: 'set',
    state: 'NODE_STATE_RUNNING',
    nodes: ['orders'],
  });
  assert.equal(parseCommand('resume-all'), { kind: 'resume-all' });
  assert.is(parseCommand('   '), null);
  assert.is(parseCommand('pause'), 'pause: name at least one node');
  assert.is(parseCommand('resume-all now'), 'resume-all takes no argument');
  assert.match(String(parseCommand('stop orders')), /unknown command "stop"/);
});

test('prints feedback and pauses/resumes nodes from stdin', async () => {
  const port = await freePort();
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', 'examples/controlplane/server.ts', '--port', String(port)],
    {
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += String(chunk);
  });
  child.stderr?.on('data', (chunk) => {
    output += String(chunk);
  });
  const { logger } = capturingLogger();
  const plane = createControlPlane({
    address: `127.0.0.1:${port}`,
    engineId: 'engine-0001',
    nodes: NODES,
    feedbackIntervalMs: 200,
    resumeAfterMs: null,
    logger,
    registry: new Registry(),
    backoff: { initialMs: 50, maxMs: 200 },
  });
  const paused = (node: string) => firstValueFrom(plane.paused(node));
  try {
    await waitFor('the server to listen', () => output.includes('listening'), 15_000);
    plane.start(source);
    await waitFor('a printed feedback', () => /engine-0001 #1 \(gated/.test(output));
    assert.match(output, /orders\s+paused\s+2\.5 msg\/s {2}lag 3 {2}\[orders\/0@4 lag 3\]/);

    child.stdin?.write('resume orders\n');
    await waitFor('orders resumed', async () => !(await paused('orders')));
    assert.ok(await paused('customers'));
    await waitFor('the ack printed', () => output.includes('engine-0001: cli-1 applied'));

    child.stdin?.write('pause ghost\n');
    await waitFor('the rejection printed', () =>
      /cli-2 rejected: nodes\[0\]: unknown node "ghost"/.test(output),
    );

    child.stdin?.write('resume-all\n');
    await waitFor('customers resumed', async () => !(await paused('customers')));
    child.stdin?.write('pause orders customers\n');
    await waitFor('both paused', async () => (await paused('orders')) && (await paused('customers')));
    await waitFor('paused state printed', () =>
      /#\d+\n {2}orders\s+paused/.test(output.split('cli-4 applied')[1] ?? ''),
    );
  } finally {
    await plane.close();
    child.kill('SIGTERM');
  }
  await waitFor(
    'the engine disconnected line',
    () => output.includes('engine-0001: disconnected') || child.exitCode !== null,
    3000,
  );
});

test.run();
