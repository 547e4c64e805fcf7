import * as assert from 'node:assert/strict';
import { Subject } from 'rxjs';
import { createKafkaBroker } from '../../../operators/broker/kafka/index.ts';
import type { BrokerConsumer, ClientProperties, ConsumedMessage } from '../../../operators/broker/types.ts';
import { commitAcknowledged, consumeBatches } from '../../../operators/index.ts';
import { type KafkaFixture, startKafka } from '../../support/kafka.ts';
import { test } from '../../support/suite.ts';

let kafka: KafkaFixture;

test.before(async () => {
  kafka = await startKafka({ topics: { events: 2, other: 1 } });
});

test.after(async () => {
  await kafka?.stop();
});

/** Reads until `count` messages arrived (a group's first fetch follows its join: seconds under load). */
async function consumeAtLeast(consumer: BrokerConsumer, count: number, deadlineMs = 30_000) {
  const messages: ConsumedMessage[] = [];
  const deadline = Date.now() + deadlineMs;
  while (messages.length < count && Date.now() < deadline)
    messages.push(...(await consumer.consume(100, 200)));
  return messages;
}

test('topics() lists declared topics with their partition counts', async () => {
  const topics = await createKafkaBroker({ properties: kafka.properties }).topics();
  assert.equal(topics.get(kafka.topic('events')), 2);
  assert.equal(topics.get(kafka.topic('other')), 1);
});

test('produce resolves delivery reports; a group consumes, commits, and a new member resumes after the commit', async () => {
  const broker = createKafkaBroker({ properties: kafka.properties });
  const topic = kafka.topic('events');
  const producer = broker.producer();
  await producer.connect();
  const reports = await Promise.all([
    producer.produce({ topic, partition: 0, key: Buffer.from('a'), value: Buffer.from('1') }),
    producer.produce({
      topic,
      partition: 1,
      key: Buffer.from('b'),
      value: Buffer.from([0, 255, 1]),
      headers: [{ source: 'test' }],
    }),
    producer.produce({ topic, partition: 1, key: Buffer.from('b'), value: null }),
  ]);
  assert.deepEqual(
    reports.map((r) => [r.topic, r.partition]),
    [
      [topic, 0],
      [topic, 1],
      [topic, 1],
    ],
  );
  assert.ok(reports[2]!.offset > reports[1]!.offset, 'offsets grow within a partition');

  const first = broker.consumer({ groupId: 'g1' });
  const assigned: string[] = [];
  first.onRebalance((event) => {
    if (event.kind === 'assign') assigned.push(...event.partitions.map((p) => `${p.topic}[${p.partition}]`));
  });
  await first.connect();
  first.subscribe([topic]);
  const got = await consumeAtLeast(first, 3);
  assert.equal(got.length, 3);
  assert.deepEqual(assigned.sort(), [`${topic}[0]`, `${topic}[1]`]);
  const byPartition = got.filter((m) => m.partition === 1).sort((x, y) => x.offset - y.offset);
  assert.deepEqual(byPartition[0]!.value, Buffer.from([0, 255, 1]));
  assert.deepEqual(byPartition[0]!.key, Buffer.from('b'));
  assert.equal(String(byPartition[0]!.headers?.[0]?.source), 'test');
  assert.equal(byPartition[1]!.value, null, 'a tombstone has a null value');

  const next = got.map((m) => ({ topic: m.topic, partition: m.partition, offset: m.offset + 1 }));
  await first.commit(next);
  const lag = await first.lag();
  assert.equal(lag.length, 2);
  for (const partition of lag) {
    assert.equal(partition.lag, 0);
    assert.equal(partition.committed, partition.high);
  }
  await first.disconnect();

  await producer.produce({ topic, partition: 0, key: Buffer.from('c'), value: Buffer.from('after-commit') });
  const second = broker.consumer({ groupId: 'g1' });
  await second.connect();
  second.subscribe([topic]);
  const resumed = await consumeAtLeast(second, 1);
  assert.deepEqual(
    resumed.map((m) => m.value?.toString()),
    ['after-commit'],
  );
  // No poll runs now: this commit takes the synchronous path.
  await second.commit(resumed.map((m) => ({ topic: m.topic, partition: m.partition, offset: m.offset + 1 })));
  assert.ok((await second.lag()).every((p) => p.lag === 0));
  await second.disconnect();
  await producer.disconnect();
});

test('an aborted consume loses nothing: the next consume returns what was fetched', async () => {
  const broker = createKafkaBroker({ properties: kafka.properties });
  const topic = kafka.topic('other');
  const producer = broker.producer();
  await producer.connect();
  const consumer = broker.consumer({ groupId: 'g-abort' });
  await consumer.connect();
  consumer.subscribe([topic]);
  await consumeAtLeast(consumer, 1, 3000); // joins the group
  const controller = new AbortController();
  const pending = consumer.consume(10, 2000, controller.signal);
  controller.abort();
  assert.deepEqual(await pending, []);
  await producer.produce({ topic, key: null, value: Buffer.from('x') });
  const got = await consumeAtLeast(consumer, 1);
  assert.deepEqual(
    got.map((m) => m.value?.toString()),
    ['x'],
  );
  await consumer.disconnect();
  await producer.disconnect();
});

test('the operators run over Kafka: consumed batches are committed once acknowledged, drain completes', async () => {
  const broker = createKafkaBroker({ properties: kafka.properties });
  const topic = kafka.topic('events');
  const producer = broker.producer();
  await producer.connect();
  await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      producer.produce({ topic, key: Buffer.from(`k${i}`), value: Buffer.from(String(i)) }),
    ),
  );
  const consumer = broker.consumer({ groupId: 'g-pipeline' });
  await consumer.connect();
  const drain = new Subject<void>();
  const seen: string[] = [];
  await new Promise<void>((resolve, reject) =>
    consumeBatches(consumer, { topics: [topic], maxBatchSize: 8, maxInFlight: 2, drain })
      .pipe(commitAcknowledged(consumer, { intervalMs: 200 }))
      .subscribe({
        next: (batch) => {
          seen.push(...batch.items.map((m) => String(m.value)));
          if (Array.from({ length: 20 }, (_, n) => String(n)).every((v) => seen.includes(v))) drain.next();
        },
        error: reject,
        complete: resolve,
      }),
  );
  for (let i = 0; i < 20; i++) assert.ok(seen.includes(String(i)), `message ${i} consumed`);
  assert.ok(
    (await consumer.lag()).every((p) => p.lag === 0),
    'the final commit covered every batch',
  );
  await consumer.disconnect();
  await producer.disconnect();
});

test("keyPartitioner() predicts librdkafka's partition of keyed records, by the configured partitioner", async () => {
  const topic = kafka.topic('events');
  const configured: ClientProperties[] = [{}, { partitioner: 'murmur2_random' }, { partitioner: 'fnv1a' }];
  for (const properties of configured) {
    const broker = createKafkaBroker({ properties: kafka.properties });
    const producer = broker.producer({ properties });
    await producer.connect();
    const keys = Array.from({ length: 16 }, (_, i) => Buffer.from(`["customers",{"id":${i}}]`));
    const reports = await Promise.all(keys.map((key) => producer.produce({ topic, key, value: key })));
    await producer.disconnect();
    const predicted = keys.map((key) => broker.keyPartitioner(properties)(key, 2));
    assert.deepEqual(
      reports.map((r) => r.partition),
      predicted,
      JSON.stringify(properties),
    );
    assert.ok(new Set(predicted).size === 2, 'the keys spread over both partitions');
  }
});

test('connecting to an unreachable cluster fails in bounded time naming the servers', async () => {
  const broker = createKafkaBroker({ properties: { 'bootstrap.servers': '127.0.0.1:1' }, timeoutMs: 1500 });
  const started = Date.now();
  await assert.rejects(broker.producer().connect(), /127\.0\.0\.1:1/);
  await assert.rejects(broker.consumer({ groupId: 'x' }).connect(), /consumer group x .*127\.0\.0\.1:1/);
  // Two 1.5 s timeouts; unbounded, a connect would wait forever. Room for a loaded machine.
  assert.ok(Date.now() - started < 20_000);
});

test.run();
