/**
 * Notification service benchmark.
 *
 *   node --import tsx bench/notification.ts [--events=300] [--wide-events=10] [--rounds=3]
 *
 * Events per second from the events topic to sent notifications, through the service's own
 * Kafka intake (consumeBatches → EventProcessor → commitAcknowledged) on the engine's in-process
 * broker, for `AM/AppointmentCreated/v1` events with 1 and with 100 participants (the default
 * handler: participants looked up, settings resolved per user, email over SMTP to a loopback SMTP
 * sink and SMS to a loopback HTTP sink, a reminder set per recipient), with the MongoDB commands
 * per event (command monitoring on the service's client). Baseline in the same run, interleaved
 * round by round: the project's I/O ceiling (consume → JSON parse → produce → commit, no store)
 * on the same broker and records. Medians of the rounds. MongoDB: the test stand-in.
 */
import { parseArgs } from 'node:util';
import { MongoClient } from 'mongodb';
import pino from 'pino';
import { MemoryBroker } from '../operators/broker/memory/index.ts';
import type { ProducerRecord } from '../operators/broker/types.ts';
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
  options: {
    events: { type: 'string', default: '300' },
    'wide-events': { type: 'string', default: '10' },
    rounds: { type: 'string', default: '3' },
  },
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
  { _id: 'solo', emailAddress: 'solo@example.com', phoneNumber: '+390', groups: ['patients'] },
  ...Array.from({ length: 100 }, (_, i) => ({
    _id: `u${i}`,
    emailAddress: `u${i}@example.com`,
    phoneNumber: `+39${i}`,
    groups: ['patients'],
  })),
] as never[]);
await store.templates.insertOne({
  _id: 't',
  name: 'bench',
  emailTitle: 'Hi {{user.id}}',
  emailMessage: 'Event {{event.id}}',
  smsMessage: 'Event {{event.id}}',
});
// Every user a patient: email and SMS now, a reminder a day before the appointment.
await store.notificationSettings.insertOne({
  _id: 'created',
  eventName: 'AM/AppointmentCreated/v1',
  templateName: 'bench',
  group: 'patients',
  channels: ['email', 'sms'],
  reminders: ['P1D'],
});

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
  reminders: new Reminders(store.reminders, store.notifications, BUILT_IN_SCHEDULER, logger),
  logger,
});

const EVENT = 'AM/AppointmentCreated/v1';
const ONE = ['solo'];
const HUNDRED = Array.from({ length: 100 }, (_, i) => `u${i}`);

function records(participantIds: readonly string[], count: number, prefix: string): ProducerRecord[] {
  return Array.from({ length: count }, (_, i) => ({
    topic: 'events',
    // A JSON key, as the ceiling's echo parses it.
    key: Buffer.from(JSON.stringify(`${prefix}-${i}`)),
    value: Buffer.from(
      JSON.stringify({
        id: `${prefix}-${i}`,
        name: EVENT,
        key: `apt-${prefix}-${i}`,
        payload: { startDate: '2099-01-01T09:00:00Z', participantIds },
      }),
    ),
  }));
}

/** The service from the events topic to the last message sent. */
async function service(participantIds: readonly string[], count: number, prefix: string) {
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
  const input = records(participantIds, count, prefix);
  const mails = smtp.messages.length;
  const before = commands;
  const started = performance.now();
  for (const record of input) await producer.produce(record);
  while (smtp.messages.length - mails < count * participantIds.length)
    await new Promise((r) => setTimeout(r, 5));
  const seconds = (performance.now() - started) / 1000;
  const perEvent = (commands - before) / count;
  await intake.stop();
  return { eventsPerSecond: count / seconds, perEvent };
}

/** The I/O ceiling on the same records: enough of them to run for a measurable time (it reports whole milliseconds). */
async function ceiling(participantIds: readonly string[], prefix: string) {
  const run = await runCeiling(records(participantIds, CEILING_EVENTS, `${prefix}-ceiling`), ['events'], 1);
  return run.events / run.seconds;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

const cases = [
  { recipients: ONE, count: Number(values.events), label: '1 recipient' },
  { recipients: HUNDRED, count: Number(values['wide-events']), label: '100 recipients' },
];
const samples = cases.map(() => ({
  service: [] as number[],
  perEvent: [] as number[],
  ceiling: [] as number[],
}));
// Rounds interleaved (service, ceiling, service, ceiling…): load from other work hits both alike.
for (let round = 0; round < Number(values.rounds); round++) {
  for (const [i, c] of cases.entries()) {
    const measured = await service(c.recipients, c.count, `r${round}-${i}`);
    samples[i]?.service.push(measured.eventsPerSecond);
    samples[i]?.perEvent.push(measured.perEvent);
    samples[i]?.ceiling.push(await ceiling(c.recipients, `r${round}-${i}`));
  }
}
const rows = cases.map((c, i) => {
  const s = samples[i] ?? { service: [], perEvent: [], ceiling: [] };
  return {
    label: c.label,
    count: c.count,
    eventsPerSecond: median(s.service),
    messagesPerSecond: median(s.service) * c.recipients.length * 2,
    perEvent: median(s.perEvent),
    ceiling: median(s.ceiling),
  };
});
console.log(
  `| event (${values.rounds} rounds, medians) | events/round | events/s | messages/s (email+SMS) | MongoDB commands/event | I/O ceiling events/s (same run) | ceiling / service |`,
);
console.log('|---|---|---|---|---|---|---|');
for (const r of rows) {
  console.log(
    `| ${r.label} | ${r.count} | ${r.eventsPerSecond.toFixed(1)} | ${r.messagesPerSecond.toFixed(0)} | ${r.perEvent.toFixed(1)} | ${r.ceiling.toFixed(0)} | ${(r.ceiling / r.eventsPerSecond).toFixed(0)}× |`,
  );
}
delivery.close();
await client.close();
await Promise.all([mongo.stop(), smtp.stop(), sms.stop()]);
