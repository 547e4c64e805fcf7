/**
 * Issue 28 (c): the notification service's Kafka intake on a three-node cluster (replication
 * factor 3, `min.insync.replicas=2`). Events with ids go to a three-partition topic, one in five
 * of them twice; once the intake has sent the first notifications, the node leading the most of
 * the partitions (the consumer group's coordinator among equals) is SIGKILLed, and the rest is
 * sent. The intake must go on and, once its group has committed the whole topic (nothing left to
 * deliver again), have handled every event exactly once: each event PROCESSED and its email sent
 * once, redeliveries and duplicates included, as its idempotency (the event id) promises.
 * REPEAT=n runs it n times on the file's cluster.
 */
import * as assert from 'node:assert/strict';
import { MongoClient } from 'mongodb';
import { createKafkaBroker } from '../../operators/broker/kafka/index.ts';
import {
  type NotificationService,
  seedEmailNotification,
  startService,
} from '../services/notification/service-fixture.ts';
import { startMongo } from '../support/mongo.ts';
import { startSmtpSink } from '../support/smtp-sink.ts';
import {
  busiestLeader,
  type FailoverCluster,
  freshTopics,
  groupLag,
  partitionsOf,
  restore,
  until,
} from './cluster.ts';
import { failoverTest } from './repeat.ts';

const EVENTS = 300;
const PARTITIONS = 3;
const EVENT_NAME = 'TMM/TherapyCreated/v1';

/** Each event once, in order, and one in five again a little later (a producer's retry). */
function eventsOf(run: number): { id: string; order: string }[] {
  const events = Array.from({ length: EVENTS }, (_, i) => ({ id: `ev-${run}-${i}`, order: `O-${run}-${i}` }));
  return events.flatMap((event, i) => (i % 5 === 0 ? [event, events[Math.max(0, i - 3)]!] : [event]));
}

async function runOnce(kafka: FailoverCluster, run: number): Promise<string> {
  const topics = await freshTopics(kafka, { events: PARTITIONS, errors: 1 });
  const groupId = `notification-failover-${topics.events}`;
  const [mongo, smtp] = await Promise.all([startMongo(), startSmtpSink()]);
  const client = await MongoClient.connect(mongo.url);
  const db = client.db(mongo.database);
  const producer = createKafkaBroker({ properties: kafka.properties }).producer();
  let service: NotificationService | undefined;
  try {
    await seedEmailNotification(db, EVENT_NAME);
    service = await startService({
      MONGODB_URL: mongo.url,
      MONGODB_DATABASE: mongo.database,
      SMTP_URL: smtp.url,
      KAFKA_BROKERS: kafka.brokers,
      KAFKA_EVENTS_TOPIC_NAME: topics.events,
      KAFKA_ERRORS_TOPIC_NAME: topics.errors,
      KAFKA_CONSUMER_GROUP: groupId,
    });
    await producer.connect();
    const send = (events: readonly { id: string; order: string }[]) =>
      Promise.all(
        events.map((event) =>
          producer.produce({
            topic: topics.events,
            key: Buffer.from(event.id),
            value: Buffer.from(JSON.stringify({ ...event, name: EVENT_NAME, patientId: 'ada' })),
          }),
        ),
      );
    const events = eventsOf(run);
    const third = Math.floor(events.length / 3);
    await send(events.slice(0, third));
    await until('the intake sent its first notifications', () => smtp.messages.length > 0);

    const victim = await busiestLeader(kafka, [topics.events]);
    const coordinator = (await partitionsOf(kafka, ['__consumer_offsets']))[0]!.leader === victim;
    await kafka.cluster.node(victim).kill();
    await send(events.slice(third));

    const orders = () => smtp.messages.map((m) => /Order (\S+)/.exec(m.data)?.[1] ?? m.data);
    const detail = () => `; ${smtp.messages.length} emails, group lag ${lag}`;
    let lag = -1;
    await until(
      'the group has committed every event',
      async () => {
        lag = await groupLag(kafka, groupId, topics.events, PARTITIONS);
        return lag === 0;
      },
      120_000,
      detail,
    );
    await service.close();
    service = undefined;

    const unique = [...new Set(events.map((e) => e.order))].sort();
    assert.deepEqual([...orders()].sort(), unique, 'every event’s email sent exactly once');
    const processed = await db.collection('events').countDocuments({ status: 'PROCESSED' });
    assert.equal(processed, EVENTS, 'every event stored once and PROCESSED');
    assert.equal(await db.collection('events').countDocuments(), EVENTS, 'no other event stored');
    return `${events.length} events (${EVENTS} distinct) handled once each; node ${victim}${coordinator ? ', the group coordinator,' : ''} SIGKILLed`;
  } finally {
    await service?.close();
    await producer.disconnect().catch(() => {});
    await client.close();
    await Promise.all([mongo.stop(), smtp.stop()]);
    await restore(kafka, Object.values(topics));
  }
}

await failoverTest(
  'Kafka intake, the busiest partition leader SIGKILLed mid-stream: every event handled exactly once',
  'notification failover',
  runOnce,
);
