import * as assert from 'node:assert/strict';
import { type Db, MongoClient } from 'mongodb';
import pino from 'pino';
import { createDelivery, type Delivery } from '../../../services/notification/channels.ts';
import { readConfig } from '../../../services/notification/config.ts';
import { durationMs } from '../../../services/notification/duration.ts';
import { EventProcessor } from '../../../services/notification/events.ts';
import { Reminders } from '../../../services/notification/reminders.ts';
import { type Collections, collections, ensureIndexes } from '../../../services/notification/store.ts';
import { createRenderer } from '../../../services/notification/templates.ts';
import { Users } from '../../../services/notification/users.ts';
import { type MongoFixture, startMongo } from '../../support/mongo.ts';
import { type SmtpSink, startSmtpSink } from '../../support/smtp-sink.ts';
import { test } from '../../support/suite.ts';

let mongo: MongoFixture;
let smtp: SmtpSink;
let client: MongoClient;
let db: Db;
let store: Collections;
let delivery: Delivery;
let clock = new Date('2026-03-01T08:00:00Z');
const now = () => clock;

/** One service instance: what a restart replaces (the database stays). */
function instance() {
  const config = readConfig({ MONGODB_URL: mongo.url, MONGODB_DATABASE: mongo.database, SMTP_URL: smtp.url });
  const users = new Users(store.users, config.service.userFields);
  const render = createRenderer('en');
  const reminders = new Reminders(store, users, render, delivery.deliver, pino({ level: 'silent' }), now);
  const events = new EventProcessor(store, users, ['email'], render, delivery.deliver, reminders, now);
  return { reminders, events };
}

const subjects = () => smtp.messages.map((m) => /Subject: (.*)/.exec(m.data)?.[1]);

test.before(async () => {
  [mongo, smtp] = await Promise.all([startMongo(), startSmtpSink()]);
  client = await MongoClient.connect(mongo.url);
  db = client.db(mongo.database);
  const config = readConfig({ MONGODB_URL: mongo.url, MONGODB_DATABASE: mongo.database, SMTP_URL: smtp.url });
  store = collections(db, config);
  await ensureIndexes(store, '_id');
  delivery = createDelivery(config);
  await db.collection('users').insertMany([
    { _id: 'ada' as never, emailAddress: 'ada@example.com', groups: ['patients'] },
    { _id: 'bob' as never, emailAddress: 'bob@example.com', groups: ['staff'] },
  ]);
  await db.collection('message_templates').insertOne({
    name: 'visit',
    emailTitle: 'Visit {{event.key}} {{event.name}}',
    emailMessage: 'at {{startDate}}',
  });
  await db.collection('notifications_settings').insertMany(
    ['AM/AppointmentCreated/v1', 'AM/AppointmentUpdated/v1'].map((eventName) => ({
      eventName,
      templateName: 'visit',
      group: 'patients',
      channels: ['email'],
      reminders: ['P1D', 'PT1H'],
    })),
  );
});

test.after(async () => {
  delivery?.close();
  await client?.close();
  await Promise.all([mongo?.stop(), smtp?.stop()]);
});

test('ISO 8601 durations', () => {
  assert.equal(durationMs('P1D'), 86_400_000);
  assert.equal(durationMs('PT1H30M'), 5_400_000);
  assert.equal(durationMs('P1W'), 7 * 86_400_000);
  assert.equal(durationMs('PT0.5S'), 500);
  for (const bad of ['P', 'PT', 'P1M', 'P1Y', '1D', 'PT1D']) assert.equal(durationMs(bad), undefined, bad);
});

test('reminders: scheduled before the event date, only for the interested users, fired once when due, surviving a restart', async () => {
  const first = instance();
  const event = {
    id: 'a-1',
    name: 'AM/AppointmentCreated/v1',
    key: 'apt-1',
    payload: { startDate: '2026-03-03T10:00:00Z' },
  };
  const { notifications } = await first.events.process(event, { type: 'test' });
  assert.deepEqual(
    ((notifications[0]?.reminders ?? []) as { schedule: string; expirationDate: Date }[]).map((r) => [
      r.schedule,
      new Date(r.expirationDate).toISOString(),
    ]),
    [
      ['P1D', '2026-03-02T10:00:00.000Z'],
      ['PT1H', '2026-03-03T09:00:00.000Z'],
    ],
  );
  assert.equal(await store.reminders.countDocuments({ recipient: 'bob' }), 0, 'bob is not interested');
  await first.events.process(event, { type: 'test' }); // redelivered
  assert.equal(await store.reminders.countDocuments(), 2, 'a redelivered event schedules nothing twice');
  assert.equal(await first.reminders.tick(), 0, 'nothing due yet');
  clock = new Date('2026-03-02T10:00:00Z');
  const sent = smtp.messages.length;
  const restarted = instance();
  assert.equal(await restarted.reminders.tick(), 1, 'the P1D reminder, after a restart');
  assert.equal(await restarted.reminders.tick(), 0, 'fired once');
  assert.equal(smtp.messages.length - sent, 1);
  assert.equal(subjects().at(-1), 'Visit apt-1 AM/AppointmentCreated/v1');
  assert.equal((await store.reminders.findOne({ schedule: 'P1D' }))?.status, 'SENT');
});

test('an update aborts the pending reminders of its key and schedules new ones; a deletion aborts them; aborted reminders never fire', async () => {
  const { events, reminders } = instance();
  await events.process(
    {
      id: 'a-2',
      name: 'AM/AppointmentUpdated/v1',
      key: 'apt-1',
      payload: { startDate: '2026-03-04T10:00:00Z' },
    },
    { type: 'test' },
  );
  const byStatus = async () =>
    (await store.reminders.find({ key: 'apt-1' }).sort({ _id: 1 }).toArray()).map(
      (r) => `${r.eventId}/${r.schedule}:${r.status}`,
    );
  assert.deepEqual(await byStatus(), [
    'a-1/P1D:SENT',
    'a-1/PT1H:ABORTED',
    'a-2/P1D:ACTIVE',
    'a-2/PT1H:ACTIVE',
  ]);
  await events.process({ id: 'a-3', name: 'AM/AppointmentDeleted/v1', key: 'apt-1' }, { type: 'test' });
  assert.deepEqual(await byStatus(), [
    'a-1/P1D:SENT',
    'a-1/PT1H:ABORTED',
    'a-2/P1D:ABORTED',
    'a-2/PT1H:ABORTED',
  ]);
  clock = new Date('2026-03-10T00:00:00Z');
  const sent = smtp.messages.length;
  assert.equal(await reminders.tick(), 0);
  assert.equal(smtp.messages.length, sent);
});

test('a reminder already past at scheduling is not set', async () => {
  const { events } = instance();
  await events.process(
    {
      id: 'a-4',
      name: 'AM/AppointmentCreated/v1',
      key: 'apt-2',
      payload: { startDate: '2026-03-10T12:00:00Z' },
    },
    { type: 'test' },
  );
  const set = await store.reminders.find({ key: 'apt-2' }).toArray();
  assert.deepEqual(
    set.map((r) => r.schedule),
    ['PT1H'],
    'P1D before is already past',
  );
});

test.run();
