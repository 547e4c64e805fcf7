/**
 * The notification service's Kafka intake on a test cluster, for the failover and rolling-restart
 * tests of `notification*.test.ts`: the service (MongoDB, an SMTP sink, one email notification
 * set up), a producer of events with ids, the run's events (each once, one in five again a little
 * later, as a producer's retry would), and the final check: once the group has committed the whole
 * topic (nothing left to deliver again), every event stored once, PROCESSED, its email sent once.
 *
 * @example
 *   const intake = await startIntake(kafka, run);
 *   try { await intake.send(intake.events); await intake.checkHandledOnce(); } finally { await intake.close(); }
 */
import * as assert from 'node:assert/strict';
import { MongoClient } from 'mongodb';
import pino from 'pino';
import { createKafkaBroker } from '../../operators/broker/kafka/index.ts';
import {
  type NotificationService,
  seedEmailNotification,
  startService,
} from '../services/notification/service-fixture.ts';
import { startMongo } from '../support/mongo.ts';
import { startSmtpSink } from '../support/smtp-sink.ts';
import { type FailoverCluster, freshTopics, groupLag, restore, until } from './cluster.ts';
import { watchdogEvidence } from './watchdog-evidence.ts';

export const EVENTS = 300;
export const PARTITIONS = 3;
const EVENT_NAME = 'TMM/TherapyCreated/v1';

export interface IntakeEvent {
  readonly id: string;
  readonly order: string;
}

/** Each event once, in order, and one in five again a little later (a producer's retry). */
function eventsOf(run: number): IntakeEvent[] {
  const events = Array.from({ length: EVENTS }, (_, i) => ({ id: `ev-${run}-${i}`, order: `O-${run}-${i}` }));
  return events.flatMap((event, i) => (i % 5 === 0 ? [event, events[Math.max(0, i - 3)]!] : [event]));
}

export async function startIntake(kafka: FailoverCluster, run: number) {
  const topics = await freshTopics(kafka, { events: PARTITIONS, errors: 1 });
  const groupId = `notification-failover-${topics.events}`;
  const [mongo, smtp] = await Promise.all([startMongo(), startSmtpSink()]);
  const client = await MongoClient.connect(mongo.url);
  const db = client.db(mongo.database);
  const producer = createKafkaBroker({ properties: kafka.properties }).producer();
  const lines: string[] = [];
  const logger = pino(
    { level: process.env.TEST_LOG ?? 'warn' },
    {
      write: (line: string) => {
        lines.push(line);
        if (process.env.TEST_LOG) process.stdout.write(line);
      },
    },
  );
  const { 'bootstrap.servers': _, ...kafkaProperties } = kafka.properties;
  let service: NotificationService | undefined;
  const close = async () => {
    await service?.close();
    service = undefined;
    await producer.disconnect().catch(() => {});
    await client.close();
    await Promise.all([mongo.stop(), smtp.stop()]);
    await restore(kafka, Object.values(topics));
  };
  try {
    await seedEmailNotification(db, EVENT_NAME);
    service = await startService(
      {
        MONGODB_URL: mongo.url,
        MONGODB_DATABASE: mongo.database,
        SMTP_URL: smtp.url,
        KAFKA_BROKERS: kafka.brokers,
        KAFKA_EVENTS_TOPIC_NAME: topics.events,
        KAFKA_ERRORS_TOPIC_NAME: topics.errors,
        KAFKA_CONSUMER_GROUP: groupId,
        ...(Object.keys(kafkaProperties).length > 0
          ? { KAFKA_PROPERTIES: JSON.stringify(kafkaProperties) }
          : {}),
      },
      logger,
    );
    await producer.connect();
  } catch (error) {
    await close();
    throw error;
  }
  const running = service;
  const orders = () => smtp.messages.map((m) => /Order (\S+)/.exec(m.data)?.[1] ?? m.data);
  return {
    topics,
    /** The run's events, duplicates included, in the order to send them. */
    events: eventsOf(run),
    /** Emails sent so far. */
    emails: () => smtp.messages.length,
    /** Produces `events` and waits for their delivery. */
    send: (events: readonly IntakeEvent[]) =>
      Promise.all(
        events.map((event) =>
          producer.produce({
            topic: topics.events,
            key: Buffer.from(event.id),
            value: Buffer.from(JSON.stringify({ ...event, name: EVENT_NAME, patientId: 'ada' })),
          }),
        ),
      ),
    /**
     * Waits until the group has committed the whole topic, then stops the service and checks that
     * every event was handled once; returns what its watchdog did (`watchdogEvidence`).
     */
    async checkHandledOnce(): Promise<string> {
      let lag = -1;
      await until(
        'the group has committed every event',
        async () => {
          lag = await groupLag(kafka, groupId, topics.events, PARTITIONS);
          return lag === 0;
        },
        120_000,
        () => `; ${smtp.messages.length} emails, group lag ${lag}`,
      );
      const metrics = await (await fetch(`${running.base}/-/metrics`)).text();
      await running.close();
      service = undefined;
      const events = eventsOf(run);
      const unique = [...new Set(events.map((e) => e.order))].sort();
      assert.deepEqual([...orders()].sort(), unique, 'every event’s email sent exactly once');
      const processed = await db.collection('events').countDocuments({ status: 'PROCESSED' });
      assert.equal(processed, EVENTS, 'every event stored once and PROCESSED');
      assert.equal(await db.collection('events').countDocuments(), EVENTS, 'no other event stored');
      return watchdogEvidence('notification intake', metrics, lines.join(''));
    },
    close,
  };
}
