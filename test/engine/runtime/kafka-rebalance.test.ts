/**
 * Rebalances of a real consumer group (range assignor: eager, every partition revoked), shown so
 * far only on the in-process broker:
 * - a revoked partition's in-flight batches are committed before the partition is handed over,
 *   so its next owner reads on after them;
 * - a pause (what the control plane's gate sets) holds across a rebalance: partitions assigned
 *   while paused stay paused until resumed, and nothing is lost;
 * - the engine is not ready (`GET /-/ready` answers 503) while a rebalance has revoked all of a
 *   consumer's partitions, and ready again once they are assigned.
 */
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { BehaviorSubject, type Subscription } from 'rxjs';
import * as assert from 'uvu/assert';
import { serveApi } from '../../../engine/cli/serve-api.ts';
import { engineClients } from '../../../engine/runtime/clients.ts';
import { compileConfig } from '../../../engine/runtime/compile.ts';
import { groupIdOf, startEngine } from '../../../engine/runtime/engine.ts';
import { resolveSecrets } from '../../../engine/secrets/index.ts';
import { MemoryStore } from '../../../engine/store/index.ts';
import { createKafkaBroker } from '../../../operators/broker/kafka/index.ts';
import type { ConsumedMessage, RebalanceEvent } from '../../../operators/broker/types.ts';
import { acknowledge, type Batch, commitAcknowledged, consumeBatches } from '../../../operators/index.ts';
import { configFor, SINGLE_VIEW } from '../../support/configs.ts';
import { type KafkaFixture, startKafka } from '../../support/kafka.ts';
import { committedOffsets } from '../../support/kafka-offsets.ts';
import { freePorts } from '../../support/process.ts';
import { test } from '../../support/suite.ts';
import { until } from '../../support/until.ts';

const TOPICS = { handover: 2, paused: 2, customers: 2, orders: 1, items: 1, internal: 1, output: 1 };
/** A member that stops polling is dropped after 6 s, not librdkafka's 5 minutes. */
const FAST_GROUP = { 'session.timeout.ms': 6000, 'heartbeat.interval.ms': 500, 'max.poll.interval.ms': 6000 };
let kafka: KafkaFixture;

test.before(async () => {
  kafka = await startKafka({ topics: TOPICS });
});
test.after(async () => {
  await kafka?.stop();
});

/** Writes `count` records to each of a topic's two partitions; `tag` tells the rounds apart. */
async function write(topic: string, count: number, tag: string): Promise<void> {
  const producer = createKafkaBroker({ properties: kafka.properties }).producer();
  await producer.connect();
  await Promise.all(
    [0, 1].flatMap((partition) =>
      Array.from({ length: count }, (_, i) =>
        producer.produce({ topic, partition, key: null, value: Buffer.from(`${tag}-${partition}-${i}`) }),
      ),
    ),
  );
  await producer.disconnect();
}

/** A group member of the engine's consumer class, polling in a loop until stopped. */
async function member(groupId: string, topic: string, log: string[], name: string) {
  const consumer = createKafkaBroker({ properties: kafka.properties }).consumer({
    groupId,
    properties: FAST_GROUP,
  });
  const read: ConsumedMessage[] = [];
  consumer.onRebalance((e) => {
    log.push(`${name} ${e.kind} ${e.partitions.map((p) => p.partition).join(',')}`);
  });
  await consumer.connect();
  consumer.subscribe([topic]);
  let polling = true;
  const loop = (async () => {
    while (polling) {
      const messages = await consumer.consume(100, 100);
      read.push(...messages);
      const last = new Map(messages.map((m) => [m.partition, m.offset + 1]));
      await consumer.commit([...last].map(([partition, offset]) => ({ topic, partition, offset })));
    }
  })();
  const halt = async () => {
    polling = false;
    await loop;
  };
  return {
    read,
    /** Stops polling but stays in the group: the next rebalance waits for it. */
    halt,
    stop: async () => {
      await halt();
      await consumer.disconnect();
    },
  };
}

function values(messages: readonly ConsumedMessage[]): string[] {
  return messages.map((m) => String(m.value)).sort();
}

test('a revoked partition’s in-flight batches are committed before it is handed over', async () => {
  const topic = kafka.topic('handover');
  const groupId = `handover-${Date.now()}`;
  await write(topic, 5, 'old');
  const log: string[] = [];
  const consumer = createKafkaBroker({ properties: kafka.properties }).consumer({
    groupId,
    properties: FAST_GROUP,
  });
  await consumer.connect();
  const held: Batch<ConsumedMessage>[] = [];
  const events = {
    next: (e: RebalanceEvent) =>
      log.push(`first ${e.kind} ${e.partitions.map((p) => p.partition).join(',')}`),
  };
  const subscription = consumeBatches(consumer, {
    topics: [topic],
    maxBatchSize: 100,
    maxInFlight: 4,
    events,
  }).subscribe((b) => held.push(b));
  let second: Awaited<ReturnType<typeof member>> | undefined;
  try {
    await until(
      'the first member holds all 10 records unacknowledged',
      () => held.flatMap((b) => b.items).length === 10,
      30_000,
    );
    second = await member(groupId, topic, log, 'second');
    await until(
      'the rebalance revoked the first member’s partitions',
      () => log.includes('first revoke 0,1'),
      30_000,
      () => log.join('; '),
    );
    assert.not.ok(
      log.some((l) => l.startsWith('second assign') && l !== 'second assign '),
      'no partition is handed over before its batches are done',
    );
    log.push('acknowledged');
    for (const batch of held) acknowledge(batch);
    await until(
      'the second member was assigned a partition',
      () => log.some((l) => /^second assign \d/.test(l)),
      30_000,
      () => log.join('; '),
    );
    assert.ok(
      log.indexOf('acknowledged') < log.findIndex((l) => /^second assign \d/.test(l)),
      log.join('; '),
    );
    assert.equal(
      await committedOffsets(kafka.brokers, groupId, topic, 2),
      [5, 5],
      'committed at the revocation',
    );
    await write(topic, 1, 'new');
    await until(
      'the second member read the new record of its partition',
      () => second!.read.length > 0,
      30_000,
    );
    assert.ok(
      values(second.read).every((v) => v.startsWith('new-')),
      `reads on after the committed batches: ${values(second.read)}`,
    );
  } finally {
    subscription.unsubscribe();
    await second?.stop();
    await consumer.disconnect();
  }
});

test('a pause holds across a rebalance; resumed, nothing is lost', async () => {
  const topic = kafka.topic('paused');
  const groupId = `paused-${Date.now()}`;
  const consumer = createKafkaBroker({ properties: kafka.properties }).consumer({
    groupId,
    properties: FAST_GROUP,
  });
  await consumer.connect();
  const paused = new BehaviorSubject(false);
  const emitted: ConsumedMessage[] = [];
  const log: string[] = [];
  const events = {
    next: (e: RebalanceEvent) =>
      log.push(`first ${e.kind} ${e.partitions.map((p) => p.partition).join(',')}`),
  };
  let subscription: Subscription | undefined;
  let second: Awaited<ReturnType<typeof member>> | undefined;
  try {
    subscription = consumeBatches(consumer, {
      topics: [topic],
      maxBatchSize: 100,
      maxInFlight: 2,
      paused,
      events,
    })
      .pipe(commitAcknowledged(consumer, { intervalMs: 0 }))
      .subscribe((b) => emitted.push(...b.items));
    await write(topic, 2, 'before');
    await until('the first member emitted the 4 records', () => emitted.length === 4, 30_000);
    paused.next(true);
    await write(topic, 2, 'paused');
    second = await member(groupId, topic, log, 'second');
    await until(
      'the second member got a partition',
      () => log.some((l) => /^second assign \d/.test(l)),
      30_000,
      () => log.join('; '),
    );
    await second.stop();
    await until(
      'the first member owns both partitions again',
      () => log.at(-1) === 'first assign 0,1',
      30_000,
      () => log.join('; '),
    );
    // An unpaused reader of another group sees every record: they were there to be fetched.
    const control = await member(`control-${Date.now()}`, topic, [], 'control');
    await until('a control group read all 8 records', () => control.read.length === 8, 30_000);
    await control.stop();
    assert.is(emitted.length, 4, `nothing emitted while paused, across the rebalances: ${values(emitted)}`);

    paused.next(false);
    await until(
      'resumed, the paused records are emitted or were read by the second member',
      () => values([...emitted, ...second!.read]).filter((v) => v.startsWith('paused-')).length === 4,
      30_000,
      () => `emitted ${values(emitted)}; second read ${values(second!.read)}`,
    );
  } finally {
    subscription?.unsubscribe();
    await second?.stop().catch(() => {});
    await consumer.disconnect();
  }
});

test('GET /-/ready answers 503 while a rebalance has revoked all of a consumer’s partitions', async () => {
  const [port] = await freePorts(1);
  const config = configFor(SINGLE_VIEW, (d) => {
    d.id = `rebReady${Date.now() % 100_000}`;
    d.server = { ip: '127.0.0.1', port };
    d.connections.main.config = kafka.properties;
    for (const [node, consumer] of Object.entries(d.consumers.config))
      Object.assign(consumer as object, { topic: kafka.topic(node) });
    d.producer.config.topic = kafka.topic('output');
    d.processor.internalUpdates.config.topic = kafka.topic('internal');
  });
  const compiled = compileConfig(config);
  const clients = engineClients(config, await resolveSecrets(config));
  const logger = pino({ level: 'silent' });
  const store = new MemoryStore(compiled.layout);
  const engine = await startEngine({
    compiled,
    broker: createKafkaBroker({ properties: clients.producer }),
    store,
    logger,
    clients,
  });
  // What an orchestrator's probe sees: the route the `streamfold run` command serves.
  const api = await serveApi(engine, store, new Registry(), logger);
  const ready = async () => (await fetch(`http://127.0.0.1:${api.port}/-/ready`)).status === 200;
  const groupId = groupIdOf(config.id, 'customers', clients.consumer('customers'));
  const log: string[] = [];
  const members: Array<Awaited<ReturnType<typeof member>>> = [];
  try {
    await until('the engine is ready', ready, 30_000);
    // A member that joins, then stops polling: the next rebalance waits for it (up to its
    // max.poll.interval.ms) with every other member's partitions revoked.
    const stalled = await member(groupId, kafka.topic('customers'), log, 'stalled');
    members.push(stalled);
    await until(
      'the stalled member joined',
      () => log.some((l) => l.startsWith('stalled assign')),
      30_000,
      () => log.join('; '),
    );
    await until('the engine is ready again after that rebalance', ready, 30_000);
    await stalled.halt();
    members.push(await member(groupId, kafka.topic('customers'), log, 'joining'));
    await until(
      'GET /-/ready answers 503',
      async () => !(await ready()),
      20_000,
      () => log.join('; '),
    );
    await until('the engine is ready once the group settled without the stalled member', ready, 30_000, () =>
      log.join('; '),
    );
  } finally {
    for (const m of members) await m.stop();
    await api.close();
    await engine.stop();
  }
});

test.run();
