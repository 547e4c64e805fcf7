import * as assert from 'node:assert/strict';
import { type Db, MongoClient } from 'mongodb';
import { createKafkaBroker } from '../../../operators/broker/kafka/index.ts';
import type { BrokerProducer } from '../../../operators/broker/types.ts';
import { type KafkaFixture, startKafka } from '../../support/kafka.ts';
import { type MongoFixture, startMongo } from '../../support/mongo.ts';
import { type SmtpSink, startSmtpSink } from '../../support/smtp-sink.ts';
import { test } from '../../support/suite.ts';
import { until } from '../../support/until.ts';
import { startTopicReader, type TopicReader } from '../rest2broker/topic-reader.ts';
import { type NotificationService, seedEmailNotification, startService } from './service-fixture.ts';

/** How long a wait for a condition may take before the test fails. */
const WAIT_MS = 30_000;

let kafka: KafkaFixture;
let mongo: MongoFixture;
let smtp: SmtpSink;
let client: MongoClient;
let db: Db;
let reader: TopicReader;
let producer: BrokerProducer;
let server: NotificationService;

const send = (value: unknown) =>
  producer.produce({
    topic: kafka.topic('events'),
    key: null,
    value: Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)),
  });

test.before(async () => {
  [kafka, mongo, smtp] = await Promise.all([
    startKafka({ topics: { events: 1, errors: 1 } }),
    startMongo(),
    startSmtpSink(),
  ]);
  client = await MongoClient.connect(mongo.url);
  db = client.db(mongo.database);
  await seedEmailNotification(db, 'TMM/TherapyCreated/v1');
  const { 'bootstrap.servers': brokers, ...properties } = kafka.properties;
  server = await startService({
    MONGODB_URL: mongo.url,
    MONGODB_DATABASE: mongo.database,
    SMTP_URL: smtp.url,
    KAFKA_BROKERS: brokers!,
    KAFKA_PROPERTIES: JSON.stringify(properties),
    KAFKA_EVENTS_TOPIC_NAME: kafka.topic('events'),
    KAFKA_ERRORS_TOPIC_NAME: kafka.topic('errors'),
    KAFKA_CONSUMER_GROUP: 'notification-test',
  });
  // A new group starts at the end of the topic (auto.offset.reset=latest, librdkafka's default):
  // produce only once the group has its partition.
  await server.kafka?.assigned;
  producer = createKafkaBroker({ properties: kafka.properties }).producer();
  await producer.connect();
  reader = await startTopicReader(kafka, { [kafka.topic('errors')]: 1 });
});

test.after(async () => {
  await server?.close();
  await producer?.disconnect();
  await reader?.stop();
  await client?.close();
  await Promise.all([kafka?.stop(), mongo?.stop(), smtp?.stop()]);
});

test('events from Kafka: sent once even when delivered twice; bad and unknown events go to the errors topic without stalling', async () => {
  await send({ id: 'k-1', name: 'TMM/TherapyCreated/v1', patientId: 'ada', order: 'A-1' });
  await send('not json');
  await send({ id: 'k-2', name: 'Nobody/Knows/v1' });
  await send({ id: 'k-1', name: 'TMM/TherapyCreated/v1', patientId: 'ada', order: 'A-1' });
  await send({ name: 'TMM/TherapyCreated/v1', patientId: 'ada', order: 'B-2' });
  await until(
    'the last event processed',
    async () => (await db.collection('events').countDocuments({ status: { $ne: 'RECEIVED' } })) === 3,
    WAIT_MS,
  );
  const errors = await reader.waitFor(kafka.topic('errors'), 2);
  const reasons = errors.map((m) => (JSON.parse(m.value!.toString()) as { error: string }).error);
  assert.deepEqual(reasons, ['the message is not JSON', 'Unknown event']);
  assert.equal(smtp.messages.length, 2, 'k-1 once, the event without id once');
  assert.deepEqual(
    smtp.messages.map((m) => /Order (\S+)/.exec(m.data)?.[1]),
    ['A-1', 'B-2'],
  );
  const withoutId = await db.collection('events').findOne({ 'payload.order': 'B-2' });
  assert.match(String(withoutId?._id), /:0:4$/, 'identified by its topic, partition and offset');
});

test.run();
