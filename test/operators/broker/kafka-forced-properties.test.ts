/**
 * The properties the engine forces (design/engine.md §7, operators/broker/kafka/properties.ts) hold
 * on a real broker whatever a configuration sets, under librdkafka's other names and topic-level
 * ones included: offsets move only by the engine's commits, and records are written idempotently
 * (their batches on the broker's disk carry a producer id), which librdkafka allows only with
 * `acks=all`. Each check has its control: a plain librdkafka client with the same settings shows
 * the setting would take effect. A broker of the file's own: its log segments are read from disk.
 */
import { join } from 'node:path';
import Kafka from 'node-rdkafka';
import * as assert from 'uvu/assert';
import { createKafkaBroker } from '../../../operators/broker/kafka/index.ts';
import { producerProperties } from '../../../operators/broker/kafka/properties.ts';
import type { ConsumedMessage } from '../../../operators/broker/types.ts';
import { type KafkaFixture, kafkaRestartable, realKafka, startKafka } from '../../support/kafka.ts';
import { committedOffsets } from '../../support/kafka-offsets.ts';
import { segmentBatches } from '../../support/log-segment.ts';
import { test, when } from '../../support/suite.ts';
import { until } from '../../support/until.ts';

const localKafka = (await realKafka()) && (await kafkaRestartable());
const it = when(localKafka, 'reads the log segments of a local Apache Kafka of its own');
let kafka: KafkaFixture;

test.before(async () => {
  if (localKafka) kafka = await startKafka({ topics: { read: 1, written: 1 }, own: { nodes: 1 } });
});

test.after(async () => {
  await kafka?.stop();
});

/** Auto-commit on, every way librdkafka takes it, committing every 100 ms. */
const AUTO_COMMIT = {
  'enable.auto.commit': true,
  'enable.auto.offset.store': true,
  'auto.commit.interval.ms': 100,
};

it('a configuration turning auto-commit on commits nothing: offsets move only by the engine’s commit', async () => {
  const topic = kafka.topic('read');
  const broker = createKafkaBroker({ properties: kafka.properties });
  const producer = broker.producer();
  await producer.connect();
  for (let i = 0; i < 5; i++)
    await producer.produce({ topic, key: Buffer.from(`k${i}`), value: Buffer.from(`${i}`) });
  await producer.disconnect();

  const engineGroup = `forced-engine-${Date.now()}`;
  const consumer = broker.consumer({ groupId: engineGroup, properties: AUTO_COMMIT });
  await consumer.connect();
  const controlGroup = `forced-control-${Date.now()}`;
  const control = new Kafka.KafkaConsumer(
    { ...kafka.properties, ...AUTO_COMMIT, 'group.id': controlGroup },
    { 'auto.offset.reset': 'earliest' },
  );
  try {
    consumer.subscribe([topic]);
    const read: ConsumedMessage[] = [];
    await until(
      'the engine consumer read all 5 records',
      async () => {
        read.push(...(await consumer.consume(100, 200)));
        return read.length === 5;
      },
      30_000,
    );

    // The control group, same settings on a plain client, reads them too and auto-commits:
    // once its offsets moved, an auto-commit of the engine's consumer would have happened too.
    await new Promise<void>((done, fail) => control.connect({}, (err) => (err ? fail(err) : done())));
    control.subscribe([topic]);
    control.setDefaultConsumeTimeout(200);
    let controlRead = 0;
    await until(
      'the control group auto-committed offset 5',
      async () => {
        controlRead += await new Promise<number>((done) =>
          control.consume(100, (_e, m) => done(m?.length ?? 0)),
        );
        // The engine's consumer keeps polling meanwhile, as the engine does.
        await consumer.consume(100, 10);
        return (await committedOffsets(kafka.brokers, controlGroup, topic, 1))[0] === 5;
      },
      30_000,
    );
    assert.is(controlRead, 5);
    assert.equal(await committedOffsets(kafka.brokers, engineGroup, topic, 1), [-1], 'nothing committed');

    await consumer.commit([{ topic, partition: 0, offset: 3 }]);
    assert.equal(await committedOffsets(kafka.brokers, engineGroup, topic, 1), [3], 'the engine’s commit');
  } finally {
    await consumer.disconnect();
    await new Promise<void>((done) => (control.isConnected() ? control.disconnect(() => done()) : done()));
  }
});

it('a configuration weakening the producer (acks, request.required.acks, idempotence off) still writes idempotently with acks=all', async () => {
  const topic = kafka.topic('written');
  const weak = { 'enable.idempotence': false, acks: 1, 'request.required.acks': 0 };

  // The control: a plain client with the same settings writes batches without a producer id.
  const plain = new Kafka.Producer({ ...kafka.properties, ...weak, dr_cb: true }, { acks: 1 });
  await new Promise<void>((done, fail) => plain.connect({}, (err) => (err ? fail(err) : done())));
  plain.setPollInterval(10);
  await new Promise<void>((done, fail) => {
    plain.once('delivery-report', (err) => (err ? fail(err) : done()));
    plain.produce(topic, 0, Buffer.from('plain'), 'plain');
  });
  await new Promise<void>((done) => plain.disconnect(() => done()));

  const broker = createKafkaBroker({ properties: kafka.properties });
  const producer = broker.producer({ properties: weak });
  await producer.connect();
  const reports = [];
  for (let i = 0; i < 3; i++)
    reports.push(
      await producer.produce({ topic, partition: 0, key: Buffer.from('k'), value: Buffer.from(`${i}`) }),
    );
  await producer.disconnect();
  assert.equal(
    reports.map((r) => r.offset),
    [1, 2, 3],
  );

  const batches = segmentBatches(join(kafka.cluster!.dataDir, 'node-1'), topic, 0);
  const plainBatch = batches.find((b) => b.baseOffset === 0n);
  assert.is(plainBatch?.producerId, -1n, 'the control wrote without a producer id');
  const engineBatches = batches.filter((b) => b.baseOffset > 0n);
  assert.ok(engineBatches.length > 0);
  for (const batch of engineBatches) {
    assert.ok(
      batch.producerId >= 0n,
      `an idempotent producer's batch: ${JSON.stringify(batch, (_, v) => (typeof v === 'bigint' ? String(v) : v))}`,
    );
  }
  // Sequences count the records of that producer id: 0, then on without a gap.
  assert.is(engineBatches[0]?.baseSequence, 0);

  // What librdkafka was handed: `acks=all` and no other name of it (librdkafka applies the
  // properties in order, so a later alias would win, or fail idempotence at startup).
  const effective = producerProperties({ ...kafka.properties, ...weak });
  assert.is(effective.acks, 'all');
  assert.is(effective['enable.idempotence'], true);
  assert.not.ok('request.required.acks' in effective);
});

test.run();
