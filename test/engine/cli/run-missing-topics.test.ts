/**
 * `streamfold run` against a broker that does not create topics on demand
 * (`auto.create.topics.enable=false`, the local Apache Kafka's setting and a production
 * cluster's usual one): a configuration naming topics that do not exist exits 1 at startup with
 * one message naming each missing topic, input, output and internal-updates alike, and creates
 * none of them. MongoDB is never reached: the topics are checked first.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { clusterMetadata } from '../../../local-kafka/admin.ts';
import { configFor, SINGLE_VIEW } from '../../support/configs.ts';
import { startKafka } from '../../support/kafka.ts';
import { test } from '../../support/suite.ts';

test('run exits 1 naming each missing topic, and creates none of them', async () => {
  const kafka = await startKafka({ topics: { customers: 1, orders: 2 } });
  const dir = mkdtempSync(join(tmpdir(), 'streamfold-missing-'));
  const absent = (name: string) => `absent-${name}-${randomBytes(4).toString('hex')}`;
  const missing = { items: absent('items'), output: absent('output'), internal: absent('internal') };
  try {
    const config = configFor(SINGLE_VIEW, (d) => {
      d.connections.main.config = kafka.properties;
      d.consumers.config.customers.topic = kafka.topic('customers');
      d.consumers.config.orders.topic = kafka.topic('orders');
      d.consumers.config.items.topic = missing.items;
      d.producer.config.topic = missing.output;
      d.processor.internalUpdates.config.topic = missing.internal;
      d.processor.persistence.config = { url: { type: 'env', key: 'TEST_MONGODB_URL' } };
    });
    const file = join(dir, 'config.json');
    writeFileSync(file, JSON.stringify(config));
    const run = spawnSync(process.execPath, ['bin/streamfold.js', 'run', file], {
      // Nothing listens there: reaching MongoDB would fail differently.
      env: { ...process.env, TEST_MONGODB_URL: 'mongodb://127.0.0.1:1', LOG_LEVEL: 'warn' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.is(run.status, 1, `exit code; stderr: ${run.stderr}`);
    const line = run.stderr.split('\n').find((l) => l.includes('topic(s) missing on the broker')) ?? '';
    for (const topic of Object.values(missing))
      assert.ok(line.includes(topic), `names ${topic}: ${run.stderr}`);
    for (const present of [kafka.topic('customers'), kafka.topic('orders')])
      assert.not.ok(line.includes(present), `does not name ${present}`);
    assert.not.match(run.stderr, /\n\s+at /, 'no stack trace');

    const { topics } = await clusterMetadata(kafka.brokers);
    for (const topic of Object.values(missing)) assert.not.ok(topics.has(topic), `${topic} was not created`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await kafka.stop();
  }
});

test.run();
