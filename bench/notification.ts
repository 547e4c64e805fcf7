/**
 * Notification service benchmark.
 *
 *   node --import tsx bench/notification.ts [--events=300] [--wide-events=10]
 *
 * Events per second from the events topic to sent notifications, through the service's own
 * Kafka intake (consumeBatches → EventProcessor → commitAcknowledged) on the engine's in-process
 * broker, for a 1-recipient and a 100-recipient event (email over SMTP to a loopback SMTP sink,
 * SMS to a loopback HTTP sink), with the MongoDB commands per event (command monitoring on the
 * service's client). Baseline in the same run: the project's I/O ceiling (consume → JSON parse →
 * produce → commit, no store) on the same broker and records. MongoDB: the test stand-in, or
 * `MONGODB_URL`.
 */
import { parseArgs } from 'node:util';
import { MongoClient } from 'mongodb';
import pino from 'pino';
import { MemoryBroker } from '../engine/broker/memory/index.ts';
import type { ProducerRecord } from '../engine/broker/types.ts';
import { createDelivery } from '../services/notification/channels.ts';
import { readConfig } from '../services/notification/config.ts';
import { EventProcessor } from '../services/notification/events.ts';
import { startKafkaIntake } from '../services/notification/kafka-intake.ts';
import { BUILT_IN_SCHEDULER, Reminders } from '../services/notification/reminders.ts';
import { collections, ensureIndexes } from '../services/notification/store.ts';
import { createRenderer } from '../services/notification/templates.ts';
import { Users } from '../services/notification/users.ts';
import { startHttpSink } from '../test/support/http-sink.ts';
import { startMongo } from '../test/support/mongo.ts';
import { startSmtpSink } from '../test/support/smtp-sink.ts';
import { runCeiling } from './harness/ceiling.ts';

const { values } = parseArgs({
  options: { events: { type: 'string', default: '300' }, 'wide-events': { type: 'string', default: '10' } },
});

const CEILING_EVENTS = 50_000;

const mongo = await startMongo();
const [smtp, sms] = await Promise.all([startSmtpSink(), startHttpSink()]);
const config = readConfig({
  MONGODB_URL: mongo.url,
  MONGODB_DATABASE: mongo.database,
  SMTP_URL: smtp.url,
  SMS_SERVICE_URL: sms.url,
});
let commands = 0;
const client = new MongoClient(mongo.url, { monitorCommands: true });
client.on('commandStarted', () => {
  commands++;
});
const store = collections(client.db(mongo.database), config);
await ensureIndexes(store, '_id');
await store.users.insertMany([
  { _id: 'solo', emailAddress: 'solo@example.com', phoneNumber: '+390', groups: ['one'] },
  ...Array.from({ length: 100 }, (_, i) => ({
    _id: `u${i}`,
    emailAddress: `u${i}@example.com`,
    phoneNumber: `+39${i}`,
    groups: ['hundred'],
  })),
] as never[]);
await store.templates.insertOne({
  _id: 't',
  name: 'bench',
  emailTitle: 'Hi {{user.id}}',
  emailMessage: 'Event {{event.id}}',
  smsMessage: 'Event {{event.id}}',
});
for (const [eventName, group] of [
  ['Bench/One/v1', 'one'],
  ['Bench/Hundred/v1', 'hundred'],
]) {
  await store.notificationSettings.insertOne({
    _id: eventName as string,
    eventName,
    templateName: 'bench',
    group,
    channels: ['email', 'sms'],
  });
  await store.eventSettings.insertOne({ _id: eventName as string, eventName });
}

const logger = pino({ level: 'warn' });
const delivery = createDelivery(config);
const users = new Users(store.users, config.service.userFields);
const render = createRenderer('en');
const events = new EventProcessor({
  store,
  users,
  activeChannels: ['email', 'sms'],
  render,
  deliver: delivery.deliver,
  reminders: new Reminders(store.reminders, BUILT_IN_SCHEDULER, logger),
  logger,
});

function records(name: string, count: number, prefix: string): ProducerRecord[] {
  return Array.from({ length: count }, (_, i) => ({
    topic: 'events',
    // A JSON key, as the ceiling's echo parses it.
    key: Buffer.from(JSON.stringify(`${prefix}-${i}`)),
    value: Buffer.from(JSON.stringify({ id: `${prefix}-${i}`, name, payload: { n: i } })),
  }));
}

async function measure(name: string, count: number, recipients: number, prefix: string) {
  const broker = new MemoryBroker({ topics: { events: 1, errors: 1 } });
  const intake = startKafkaIntake({
    broker,
    eventsTopic: 'events',
    errorsTopic: 'errors',
    groupId: `bench-${prefix}`,
    events,
    logger,
  });
  await intake.assigned;
  const producer = broker.producer();
  const input = records(name, count, prefix);
  const mails = smtp.messages.length;
  const before = commands;
  const started = performance.now();
  for (const record of input) await producer.produce(record);
  while (smtp.messages.length - mails < count * recipients) await new Promise((r) => setTimeout(r, 5));
  const seconds = (performance.now() - started) / 1000;
  const perEvent = (commands - before) / count;
  await intake.stop();
  // Enough records for the ceiling to run for a measurable time (it reports whole milliseconds).
  const ceiling = await runCeiling(records(name, CEILING_EVENTS, `${prefix}-ceiling`), ['events'], 1);
  return {
    name,
    recipients,
    count,
    eventsPerSecond: count / seconds,
    messagesPerSecond: (count * recipients * 2) / seconds,
    perEvent,
    ceiling: ceiling.events / ceiling.seconds,
  };
}

const rows = [
  await measure('Bench/One/v1', Number(values.events), 1, 'one'),
  await measure('Bench/Hundred/v1', Number(values['wide-events']), 100, 'hundred'),
];
console.log(
  '| event | events | events/s | messages/s (email+SMS) | MongoDB commands/event | I/O ceiling events/s (same run) | ceiling / service |',
);
console.log('|---|---|---|---|---|---|---|');
for (const r of rows) {
  console.log(
    `| ${r.recipients} recipient(s) | ${r.count} | ${r.eventsPerSecond.toFixed(1)} | ${r.messagesPerSecond.toFixed(0)} | ${r.perEvent.toFixed(1)} | ${r.ceiling.toFixed(0)} | ${(r.ceiling / r.eventsPerSecond).toFixed(0)}× |`,
  );
}
delivery.close();
await client.close();
await Promise.all([mongo.stop(), smtp.stop(), sms.stop()]);
