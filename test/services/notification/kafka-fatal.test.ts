/**
 * The Kafka intake failing for a reason it does not retry (here the broker refusing a commit):
 * no silent stall behind a ready HTTP service. The service goes not ready at once and shuts down
 * with exit code 1, so the orchestrator starts a fresh process (and consumer), as the engine does
 * on a failed pipeline; the uncommitted event is read again by the next process and sent once.
 */
import * as assert from 'node:assert/strict';
import { type Db, MongoClient } from 'mongodb';
import pino from 'pino';
import { createKafkaBroker } from '../../../operators/broker/kafka/index.ts';
import type { Broker, BrokerConsumer, BrokerProducer } from '../../../operators/broker/types.ts';
import { stopOnSignal } from '../../../services/kit/index.ts';
import { readConfig } from '../../../services/notification/config.ts';
import { startNotificationService } from '../../../services/notification/start.ts';
import { type KafkaFixture, startKafka } from '../../support/kafka.ts';
import { type MongoFixture, startMongo } from '../../support/mongo.ts';
import { type SmtpSink, startSmtpSink } from '../../support/smtp-sink.ts';
import { test } from '../../support/suite.ts';
import { until } from '../../support/until.ts';
import { seedEmailNotification } from './service-fixture.ts';

/** How long a wait for a condition may take before the test fails. */
const WAIT_MS = 60_000;

let kafka: KafkaFixture;
let mongo: MongoFixture;
let smtp: SmtpSink;
let client: MongoClient;
let db: Db;
let producer: BrokerProducer;
let env: Record<string, string>;
const logger = pino({ level: process.env.TEST_LOG ?? 'silent' });

/** The real broker, whose consumers' commits the broker refuses once `refuseCommits` is set. */
let refuseCommits = false;
/** The offsets committed through it. */
const committed: number[] = [];
function faultyBroker(): Broker {
  const real = createKafkaBroker({ properties: kafka.properties });
  const wrap = (consumer: BrokerConsumer): BrokerConsumer =>
    new Proxy(consumer, {
      get(target, property) {
        if (property === 'commit')
          return async (offsets: Parameters<BrokerConsumer['commit']>[0]) => {
            if (refuseCommits) throw new Error('Broker: Specified group generation id is not valid');
            await target.commit(offsets);
            committed.push(...offsets.map((o) => o.offset));
          };
        const value = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  return new Proxy(real, {
    get(target, property) {
      if (property === 'consumer')
        return (options: Parameters<Broker['consumer']>[0]) => wrap(target.consumer(options));
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

const start = (kafkaBroker?: Broker) =>
  startNotificationService(readConfig({ HTTP_PORT: '0', ...env }), {
    logger,
    handleSignals: false,
    kafkaBroker,
  });

const readiness = async (port: number) => (await fetch(`http://127.0.0.1:${port}/-/ready`)).status;
const statusOf = async (id: string) => (await db.collection('events').findOne({ _id: id as never }))?.status;
const mails = (order: string) => smtp.messages.filter((m) => m.data.includes(`Order ${order}`)).length;
const send = (id: string, order: string) =>
  producer.produce({
    topic: kafka.topic('events'),
    key: null,
    value: Buffer.from(JSON.stringify({ id, name: 'ACME/OrderShipped/v1', payload: { order } })),
  });

test.before(async () => {
  [kafka, mongo, smtp] = await Promise.all([
    startKafka({ topics: { events: 1, errors: 1 } }),
    startMongo(),
    startSmtpSink(),
  ]);
  client = await MongoClient.connect(mongo.url);
  db = client.db(mongo.database);
  await seedEmailNotification(db, 'ACME/OrderShipped/v1');
  // A custom event: with event settings, it goes to the users its notification settings target.
  await db.collection('event_settings').insertOne({ eventName: 'ACME/OrderShipped/v1' });
  const { 'bootstrap.servers': brokers, ...properties } = kafka.properties;
  env = {
    MONGODB_URL: mongo.url,
    MONGODB_DATABASE: mongo.database,
    SMTP_URL: smtp.url,
    CHANNEL_RETRIES: '0',
    KAFKA_BROKERS: brokers as string,
    KAFKA_PROPERTIES: JSON.stringify(properties),
    KAFKA_EVENTS_TOPIC_NAME: kafka.topic('events'),
    KAFKA_ERRORS_TOPIC_NAME: kafka.topic('errors'),
    KAFKA_CONSUMER_GROUP: 'notification-fatal',
  };
  producer = createKafkaBroker({ properties: kafka.properties }).producer();
  await producer.connect();
});

test.after(async () => {
  await producer?.disconnect();
  await client?.close();
  await Promise.all([kafka?.stop(), mongo?.stop(), smtp?.stop()]);
});

test('a commit the broker refuses (not retried): the service turns not ready and exits 1 instead of serving on with a dead intake; the next process sends the event once', async () => {
  const server = await start(faultyBroker());
  await server.kafka?.assigned;
  await send('e-1', 'A-1');
  await until('the first event processed', async () => (await statusOf('e-1')) === 'PROCESSED', WAIT_MS);
  await until('the first event committed', () => committed.length > 0, WAIT_MS);
  assert.equal(await readiness(server.port), 200);

  refuseCommits = true;
  await send('e-2', 'A-2');
  // Not ready: the orchestrator stops routing to it (a dead intake behind a ready service is the stall).
  await until('readiness to turn 503', async () => (await readiness(server.port)) === 503, WAIT_MS);
  const failure = await server.failed;
  assert.match(failure.message, /generation id is not valid/);
  assert.equal((await fetch(`http://127.0.0.1:${server.port}/-/healthz`)).status, 200);
  // What `streamfold service notification` does with it: shut down, exit code 1.
  assert.equal(await stopOnSignal(() => server.close(), logger, server.failed), 1);
  assert.equal(server.draining, true);

  // The restarted process (a fresh consumer) reads the uncommitted event again; idempotent by id.
  refuseCommits = false;
  const next = await start();
  try {
    await next.kafka?.assigned;
    await send('e-3', 'A-3');
    // e-2 was not committed: the new consumer starts at it; e-3 comes after it on the partition.
    await until('the next event processed', async () => (await statusOf('e-3')) === 'PROCESSED', WAIT_MS);
    assert.equal(await statusOf('e-2'), 'PROCESSED');
    assert.equal(mails('A-2'), 1, 'sent once across the failure and the restart');
    assert.equal(await readiness(next.port), 200);
  } finally {
    await next.close();
  }
});

test.run();
