/**
 * `streamfold kafka` as a user runs it: the KAFKA_BROKERS line once the broker answers, the topics
 * it was asked for, a clean stop on SIGTERM, and a clear exit on a port already taken.
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { clusterMetadata } from '../../local-kafka/admin.ts';
import { freePorts } from '../../local-kafka/cluster.ts';
import { test } from '../support/suite.ts';
import { until } from '../support/until.ts';

/** A JVM start plus Maven's classpath check on two busy cores. */
const START_MS = 120_000;

function startCli(args: string[]) {
  const child = spawn(process.execPath, ['bin/streamfold.js', 'kafka', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d));
  child.stderr.on('data', (d: Buffer) => (err += d));
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  return { child, exited, out: () => out, err: () => err };
}

/** A fresh client's request may meet a dropped connection on a loaded machine: ask until one answers. */
async function metadataOf(bootstrap: string) {
  for (const deadline = Date.now() + 30_000; ; ) {
    try {
      return await clusterMetadata(bootstrap);
    } catch (error) {
      if (Date.now() > deadline) throw error;
    }
  }
}

test('prints KAFKA_BROKERS once ready, creates --topics, stops cleanly on SIGTERM', async () => {
  const [port] = await freePorts(1);
  const cli = startCli(['--port', String(port), '--topics', 'customers:2,orders:3']);
  try {
    await until('the KAFKA_BROKERS line', () => /KAFKA_BROKERS=/.test(cli.out()), START_MS, cli.err);
    assert.equal(cli.out(), `KAFKA_BROKERS=127.0.0.1:${port}\n`, 'one line on stdout, nothing else');
    assert.match(cli.err(), /Apache Kafka 4\.1\.\d+ ready; logs: .*node-1\.log; topics: customers, orders/);
    const metadata = await metadataOf(`127.0.0.1:${port}`);
    assert.equal(cli.child.exitCode, null, 'it stays in the foreground until a signal');
    assert.deepEqual(metadata.brokers, [1]);
    assert.equal(metadata.topics.get('customers'), 2);
    assert.equal(metadata.topics.get('orders'), 3);
    cli.child.kill('SIGTERM');
    const [code] = await cli.exited;
    assert.equal(code, 0, cli.err());
    assert.match(cli.err(), /SIGTERM: stopping Kafka…\nKafka stopped/);
  } finally {
    if (cli.child.exitCode === null && cli.child.pid) process.kill(-cli.child.pid, 'SIGKILL');
  }
});

test('a port already in use: exit 1 saying why, no KAFKA_BROKERS line', async () => {
  const blocker = createServer();
  await new Promise<void>((done) => blocker.listen(0, '127.0.0.1', done));
  const port = (blocker.address() as { port: number }).port;
  try {
    const cli = startCli(['--port', String(port)]);
    const [code] = await cli.exited;
    assert.equal(code, 1);
    assert.equal(cli.out(), '');
    assert.match(cli.err(), /streamfold kafka: Kafka node 1 exited while starting/);
  } finally {
    blocker.close();
  }
});

test('usage errors: --brokers other than 1 or 3, a bad --topics entry', async () => {
  for (const [args, message] of [
    [['--brokers', '2'], /--brokers takes 1 or 3, not 2/],
    [['--topics', 'a:0'], /"a:0" is not name\[:partitions\]/],
  ] as const) {
    const cli = startCli([...args]);
    const [code] = await cli.exited;
    assert.equal(code, 2);
    assert.match(cli.err(), message);
  }
});

test.run();
