/**
 * `streamfold run <config>` as a process, on Kafka (the run's broker) and MongoDB (jongodb or MONGODB_URL):
 * readiness over HTTP, aggregated output, the items route, and a graceful SIGTERM.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { encodeKeyOnly } from '../../../engine/record/key.ts';
import { createKafkaBroker } from '../../../operators/broker/kafka/index.ts';
import { configFor, SINGLE_VIEW } from '../../support/configs.ts';
import { startKafka } from '../../support/kafka.ts';
import { startMongo } from '../../support/mongo.ts';
import { freePorts } from '../../support/process.ts';
import { test } from '../../support/suite.ts';
import { until } from '../../support/until.ts';

/** How long a wait for a condition may take before the test fails. */
const WAIT_MS = 60_000;

test('run: ready over HTTP, aggregates, items route, SIGTERM exits 0 after a graceful stop', async () => {
  // Five topics of two partitions (also a set the Mokapi stand-in serves, see test/support/kafka.ts).
  const started = await Promise.allSettled([
    startKafka({ topics: { customers: 2, orders: 2, items: 2, internal: 2, output: 2 } }),
    startMongo(),
  ]);
  const [kafkaStart, mongoStart] = started;
  if (kafkaStart.status === 'rejected' || mongoStart.status === 'rejected') {
    // Stop whichever fixture did start: a live child process would keep this file running.
    await Promise.allSettled(started.map((r) => (r.status === 'fulfilled' ? r.value.stop() : undefined)));
    throw kafkaStart.status === 'rejected' ? kafkaStart.reason : (mongoStart as PromiseRejectedResult).reason;
  }
  const kafka = kafkaStart.value;
  const mongo = mongoStart.value;
  const [port] = await freePorts(1);
  const dir = mkdtempSync(join(tmpdir(), 'streamfold-run-'));
  const config = configFor(SINGLE_VIEW, (d) => {
    d.connections.main.config = kafka.properties;
    for (const [node, consumer] of Object.entries(d.consumers.config))
      Object.assign(consumer as object, { topic: kafka.topic(node) });
    d.producer.config.topic = kafka.topic('output');
    d.processor.persistence.config = {
      url: { type: 'env', key: 'TEST_MONGODB_URL' },
      database: mongo.database,
    };
    d.processor.internalUpdates.config.topic = kafka.topic('internal');
    d.server = { ip: '127.0.0.1', port, apiPrefix: '/api' };
  });
  const file = join(dir, 'config.json');
  writeFileSync(file, JSON.stringify(config));
  const child = spawn(process.execPath, ['bin/streamfold.js', 'run', file], {
    env: { ...process.env, TEST_MONGODB_URL: mongo.url, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let logs = '';
  child.stdout.on('data', (d: Buffer) => (logs += d));
  child.stderr.on('data', (d: Buffer) => (logs += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  try {
    const base = `http://127.0.0.1:${port}`;
    await until('the engine is ready', async () => (await fetch(`${base}/-/ready`)).status === 200, WAIT_MS);
    // Log lines reach stderr in batches (at most 100 ms late): wait for the line, not for a time.
    await until(
      'the startup summary is logged',
      async () => /running: 3 nodes, heads customers, mode read-delete/.test(logs),
      WAIT_MS,
    );

    const producer = createKafkaBroker({ properties: kafka.properties }).producer({
      properties: kafka.properties,
    });
    await producer.connect();
    const send = (topic: string, key: object, after: object) =>
      producer.produce({
        topic: kafka.topic(topic),
        key: Buffer.from(JSON.stringify(key)),
        value: Buffer.from(JSON.stringify({ op: 'c', after })),
      });
    await send('customers', { id: 1 }, { id: 1, name: 'Ada' });
    await send('orders', { id: 10 }, { id: 10, customerId: 1 });
    await producer.disconnect();

    const item = `${base}/api/heads/customers/items/${encodeKeyOnly('{"id":1}')}`;
    await until(
      'the order is aggregated',
      async () => {
        const res = await fetch(item);
        return (
          res.status === 200 &&
          ((await res.json()) as { dependencies: { orders: unknown[] } }).dependencies.orders.length === 1
        );
      },
      WAIT_MS,
    );
    assert.is((await fetch(`${base}/api/heads/customers/items/%2A%2A`)).status, 400);
    assert.match(
      await (await fetch(`${base}/-/metrics`)).text(),
      /streamfold_consumed_messages_total\{node="orders"\} 1/,
    );

    const stopping = Date.now();
    child.kill('SIGTERM');
    const code = await exited;
    assert.is(code, 0, logs.slice(-2000));
    assert.ok(Date.now() - stopping < 30_000, 'stopped within the bound');
    assert.match(logs, /stopping: finishing in-flight batches, committing, closing/);
  } finally {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    await Promise.allSettled([kafka.stop(), mongo.stop()]);
  }
});

test.run();
