import * as assert from 'node:assert/strict';
import { type Db, MongoClient } from 'mongodb';
import { startHttpSink } from '../../support/http-sink.ts';
import { type MongoFixture, startMongo } from '../../support/mongo.ts';
import { freePorts } from '../../support/process.ts';
import { type SmtpSink, startSmtpSink } from '../../support/smtp-sink.ts';
import { test } from '../../support/suite.ts';
import { type NotificationService, startService } from './service-fixture.ts';
import { startTimerStandIn, type TimerStandIn } from './timer-stand-in.ts';

let mongo: MongoFixture;
let client: MongoClient;
let db: Db;
let smtp: SmtpSink;
let timer: TimerStandIn;
let server: NotificationService;

const post = (path: string, body: unknown) => server.post(path, body);

/** An appointment of ada's far enough ahead that its reminder a day before is not past. */
const created = (id: string, key: string) => ({
  id,
  name: 'AM/AppointmentCreated/v1',
  key,
  payload: { startDate: '2099-01-10T09:30:00Z', participantIds: ['ada'] },
});

test.before(async () => {
  [mongo, smtp, timer] = await Promise.all([startMongo(), startSmtpSink(), startTimerStandIn()]);
  client = await MongoClient.connect(mongo.url);
  db = client.db(mongo.database);
  await db
    .collection('users')
    .insertOne({ _id: 'ada' as never, emailAddress: 'ada@example.com', groups: ['patients'] });
  await db.collection('message_templates').insertMany(
    ['AM/AppointmentCreated/v1', 'AM/AppointmentReminder/v1', 'AM/AppointmentDeleted/v1'].map((name) => ({
      name,
      emailTitle: name,
      emailMessage: 'at {{data.startDate}}',
    })),
  );
  await db.collection('notifications_settings').insertMany(
    ['AM/AppointmentCreated/v1', 'AM/AppointmentReminder/v1', 'AM/AppointmentDeleted/v1'].map(
      (eventName) => ({
        eventName,
        templateName: eventName,
        group: 'patients',
        channels: ['email'],
        reminders: ['P1D'],
      }),
    ),
  );
  const [port = 0] = await freePorts(1);
  server = await startService({
    HTTP_PORT: String(port),
    MONGODB_URL: mongo.url,
    MONGODB_DATABASE: mongo.database,
    SMTP_URL: smtp.url,
    TIMER_SERVICE_URL: timer.url,
    TIMER_CALLBACK_URL: `http://127.0.0.1:${port}`,
    CHANNEL_RETRIES: '1',
  });
});

test.after(async () => {
  await server?.close();
  await client?.close();
  await Promise.all([mongo?.stop(), smtp?.stop(), timer?.stop()]);
});

/** The statuses of a stored notification's reminders entries. */
const reminderStatuses = async (notificationId: string) =>
  ((await db.collection('notifications').findOne({ _id: notificationId as never }))?.reminders ?? []).map(
    (r: { status: string }) => r.status,
  );

const subjects = (from: number) => smtp.messages.slice(from).map((m) => /Subject: (.*)/.exec(m.data)?.[1]);

test('a reminder is scheduled on the timer service, and its expiration posted back sends it once', async () => {
  const answer = await post('/notification-events/', created('t-1', 'apt-1'));
  assert.equal(answer.status, 200);
  const { notifications } = (await answer.json()) as {
    notifications: { reminders: { expirationId?: string; status: string }[] }[];
  };
  assert.equal(timer.scheduled.length, 1);
  const [expiration] = timer.scheduled;
  assert.ok(expiration);
  assert.deepEqual(
    { ...expiration, payload: undefined },
    {
      expirationId: 'exp-1',
      payload: undefined,
      startDate: '2099-01-09T09:30:00.000Z',
      expirationIntervalMs: 1,
      applicantService: 'notification-manager',
      outputMode: {
        type: 'rest',
        method: 'post',
        protocol: 'http',
        hostname: '127.0.0.1',
        port: server.port,
        path: '/notification-events/',
      },
    },
  );
  const event = expiration.payload as { name: string; key: string; metadata: { reminder: unknown } };
  assert.equal(event.name, 'AM/AppointmentReminder/v1');
  assert.equal(event.key, 'apt-1');
  assert.deepEqual(event.metadata.reminder, {
    schedule: 'P1D',
    expirationDate: '2099-01-09T09:30:00.000Z',
    recipients: ['ada'],
  });
  assert.deepEqual(
    notifications[0]?.reminders.map((r) => [r.expirationId, r.status]),
    [['exp-1', 'ACTIVE']],
    'the notification lists the timer’s expiration id',
  );
  const before = smtp.messages.length;
  assert.equal((await timer.expire(expiration)).status, 200);
  assert.equal((await timer.expire(expiration)).status, 200, 'the timer retrying its call');
  assert.deepEqual(subjects(before), ['AM/AppointmentReminder/v1'], 'sent once');
  const stored = await db.collection('notification_reminders').findOne({ expirationId: 'exp-1' });
  assert.equal(stored?.status, 'ACTIVE', 'the reference’s status: active until aborted');
  assert.ok(stored?.firedAt instanceof Date, 'fired, noted beside its status');
  assert.deepEqual(await reminderStatuses('t-1:ada'), ['ACTIVE'], 'the notification says the same');
});

test('created, fired by the timer, appointment deleted: the reminder is aborted on the timer service and ABORTED on the stored notification, as the reference keeps it', async () => {
  assert.equal((await post('/notification-events/', created('t-7', 'apt-7'))).status, 200);
  const expiration = timer.scheduled.at(-1);
  assert.ok(expiration);
  const before = smtp.messages.length;
  assert.equal((await timer.expire(expiration)).status, 200, 'the timer fires the reminder');
  assert.deepEqual(subjects(before), ['AM/AppointmentReminder/v1']);
  assert.deepEqual(await reminderStatuses('t-7:ada'), ['ACTIVE'], 'fired: still ACTIVE, as the reference');
  const deleted = await post('/notification-events/', {
    ...created('t-7d', 'apt-7'),
    name: 'AM/AppointmentDeleted/v1',
  });
  assert.equal(deleted.status, 200);
  assert.equal(timer.aborted.at(-1), expiration.expirationId, 'aborted on the timer service');
  assert.deepEqual(await reminderStatuses('t-7:ada'), ['ABORTED'], 'ABORTED on the stored notification');
  const listed = (await (await fetch(`${server.base}/notifications/t-7:ada`)).json()) as {
    reminders: { expirationId: string; status: string }[];
  };
  assert.deepEqual(
    listed.reminders.map((r) => [r.expirationId, r.status]),
    [[expiration.expirationId, 'ABORTED']],
    'and GET /notifications/:id says so',
  );
  const stored = await db
    .collection('notification_reminders')
    .findOne({ expirationId: expiration.expirationId });
  assert.equal(stored?.status, 'ABORTED', 'the service’s own record agrees');
  assert.ok(stored?.firedAt instanceof Date, 'and still knows it fired');
  const sent = smtp.messages.length;
  assert.equal((await timer.expire(expiration)).status, 200, 'the timer calling back again');
  assert.deepEqual(subjects(sent), [], 'an aborted reminder sends nothing');
});

test('a crash between storing a reminder and scheduling it: the redelivered event schedules it', async () => {
  await post('/notification-events/', created('t-5', 'apt-5'));
  const reminders = db.collection('notification_reminders');
  const stored = await reminders.findOne({ key: 'apt-5' });
  assert.ok(stored?.expirationId);
  // What a crash right after the reminder's insert leaves: no expiration id, the event RECEIVED, no notification.
  await reminders.updateOne({ _id: stored._id }, { $unset: { expirationId: '' } });
  await db.collection('events').updateOne({ _id: 't-5' as never }, { $set: { status: 'RECEIVED' } });
  await db.collection('notifications').deleteOne({ _id: 't-5:ada' as never });
  const scheduled = timer.scheduled.length;
  assert.equal((await post('/notification-events/', created('t-5', 'apt-5'))).status, 200);
  assert.equal(timer.scheduled.length, scheduled + 1);
  assert.equal(
    (await reminders.findOne({ _id: stored._id }))?.expirationId,
    timer.scheduled.at(-1)?.expirationId,
  );
  assert.equal(await reminders.countDocuments({ key: 'apt-5' }), 1, 'still one reminder');
});

test('a deletion aborts the reminder on the timer service and marks it ABORTED on the stored notification; an expiration that comes anyway sends nothing', async () => {
  await post('/notification-events/', created('t-2', 'apt-2'));
  const expiration = timer.scheduled.at(-1);
  assert.ok(expiration);
  assert.deepEqual(await reminderStatuses('t-2:ada'), ['ACTIVE']);
  const abortedBefore = timer.aborted.length;
  await post('/notification-events/', { ...created('t-2d', 'apt-2'), name: 'AM/AppointmentDeleted/v1' });
  assert.deepEqual(timer.aborted.slice(abortedBefore), [expiration.expirationId]);
  assert.deepEqual(
    await reminderStatuses('t-2:ada'),
    ['ABORTED'],
    'the reference keeps reminders on the notification',
  );
  const answer = await post('/notification-events/', created('t-2', 'apt-2'));
  assert.deepEqual(
    (
      (await answer.json()) as { notifications: { reminders: { status: string }[] }[] }
    ).notifications[0]?.reminders.map((r) => r.status),
    ['ABORTED'],
    'the answer of the created event, asked again, says so too',
  );
  const before = smtp.messages.length;
  assert.equal((await timer.expire(expiration)).status, 200);
  assert.deepEqual(subjects(before), []);
  const stored = await db
    .collection('notification_reminders')
    .findOne({ expirationId: expiration.expirationId });
  assert.equal(stored?.status, 'ABORTED');
});

test('the timer service failing the abort: the reminder stays ACTIVE, as the reference leaves it, and a later deletion aborts it', async () => {
  await post('/notification-events/', created('t-3', 'apt-3'));
  const expiration = timer.scheduled.at(-1);
  assert.ok(expiration);
  timer.failWith(503, 2); // the call and its one retry
  const answer = await post('/notification-events/', {
    ...created('t-3d', 'apt-3'),
    name: 'AM/AppointmentDeleted/v1',
  });
  assert.equal(answer.status, 200);
  const reminders = db.collection('notification_reminders');
  const stored = await reminders.findOne({ expirationId: expiration.expirationId });
  assert.equal(stored?.status, 'ACTIVE');
  assert.match(String(stored?.abortError?.message), /503/);
  assert.deepEqual(await reminderStatuses('t-3:ada'), ['ACTIVE']);
  await post('/notification-events/', { ...created('t-3e', 'apt-3'), name: 'AM/AppointmentDeleted/v1' });
  assert.deepEqual(timer.aborted.at(-1), expiration.expirationId, 'aborted by the next deletion');
  assert.equal((await reminders.findOne({ expirationId: expiration.expirationId }))?.status, 'ABORTED');
  assert.deepEqual(await reminderStatuses('t-3:ada'), ['ABORTED']);
});

test('the timer service down at scheduling: the reminder is stored as ERROR on the notification, the messages are sent', async () => {
  timer.failWith(503, 2);
  const scheduled = timer.scheduled.length;
  const before = smtp.messages.length;
  const answer = await post('/notification-events/', created('t-4', 'apt-4'));
  assert.equal(answer.status, 200);
  const { notifications } = (await answer.json()) as {
    notifications: { reminders: { status: string; error?: { message: string } }[] }[];
  };
  const [reminder] = notifications[0]?.reminders ?? [];
  assert.equal(reminder?.status, 'ERROR');
  assert.match(reminder?.error?.message ?? '', /503/);
  assert.equal(timer.scheduled.length, scheduled);
  assert.deepEqual(subjects(before), ['AM/AppointmentCreated/v1']);
});

test('a deployment with the reference’s environment only (TIMER_SERVICE_URL, no TIMER_CALLBACK_URL) starts and has the timer post back to http://<SERVICE_NAME>', async () => {
  const mail = await startHttpSink();
  const reference = await startService({
    MONGODB_URL: mongo.url, // ours: the reference's CRUD_SERVICE_URL stands for it
    MONGODB_DATABASE: mongo.database,
    SERVICE_NAME: 'notification-manager',
    CRUD_SERVICE_URL: 'http://crud-service',
    USERS_CRUD_NAME: 'users',
    TEMPLATES_CRUD_NAME: 'message_templates',
    NOTIFICATIONS_SETTINGS_CRUD_NAME: 'notifications_settings',
    MAIL_SERVICE_URL: mail.url,
    TIMER_SERVICE_URL: timer.url,
  });
  try {
    const scheduled = timer.scheduled.length;
    assert.equal((await reference.post('/notification-events/', created('t-6', 'apt-6'))).status, 200);
    assert.equal(timer.scheduled.length, scheduled + 1);
    assert.deepEqual(timer.scheduled.at(-1)?.outputMode, {
      type: 'rest',
      method: 'post',
      protocol: 'http',
      hostname: 'notification-manager',
      path: '/notification-events/',
    });
    assert.deepEqual(
      mail.calls.map((c) => [c.path, (c.body as { subject: string }).subject]),
      [['/send', 'AM/AppointmentCreated/v1']],
      'the email went through the mail service',
    );
  } finally {
    await reference.close();
    await mail.stop();
  }
});

test.run();
