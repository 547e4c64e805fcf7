import * as assert from 'node:assert/strict';
import { type Db, MongoClient } from 'mongodb';
import { type HttpSink, startHttpSink } from '../../support/http-sink.ts';
import { type MongoFixture, startMongo } from '../../support/mongo.ts';
import { type SmtpSink, startSmtpSink } from '../../support/smtp-sink.ts';
import { test } from '../../support/suite.ts';
import { type NotificationService, startService } from './service-fixture.ts';

let mongo: MongoFixture;
let client: MongoClient;
let db: Db;
let smtp: SmtpSink;
let sms: HttpSink;
let files: HttpSink;
let server: NotificationService;
let base: string;

const post = (path: string, body: unknown) => server.post(path, body);
const patch = (path: string, body: unknown) => server.patch(path, body);

test.before(async () => {
  [mongo, smtp, sms, files] = await Promise.all([
    startMongo(),
    startSmtpSink(),
    startHttpSink(),
    startHttpSink({
      '/download/report.pdf': Buffer.from('%PDF-1.4 report'),
      '/download/huge.bin': Buffer.alloc(15 * 1024 * 1024 + 1),
    }),
  ]);
  client = await MongoClient.connect(mongo.url);
  db = client.db(mongo.database);
  await db.collection('users').insertMany([
    {
      _id: 'ada' as never,
      emailAddress: 'ada@example.com',
      phoneNumber: '+391',
      groups: ['doctors'],
      clusters: ['north'],
      name: 'Ada',
      surname: 'Lovelace',
    },
    {
      _id: 'bob' as never,
      emailAddress: 'bob@example.com',
      groups: ['patients'],
      clusters: ['north'],
      name: 'Bob',
    },
    { _id: 'eve' as never, phoneNumber: '+393', groups: ['patients'], roles: ['nurse'] },
  ]);
  await db.collection('message_templates').insertMany([
    {
      _id: 'welcome' as never,
      name: 'welcome',
      emailTitle: 'Hello {{user.name}}',
      emailMessage:
        "Welcome, {{user.name}} {{user.surname}}. Your visit: {{dateFormat data.when format='DD/MM/YYYY HH:mm' tz='Europe/Rome'}}",
      smsMessage: 'Hi {{user.name}}',
    },
    {
      _id: 'created' as never,
      name: 'appointment-created',
      emailTitle: 'New appointment',
      emailMessage: 'At {{data.at}}, {{user.name}}',
      smsMessage: 'Appointment {{data.at}}',
    },
  ]);
  server = await startService({
    MONGODB_URL: mongo.url,
    MONGODB_DATABASE: mongo.database,
    SMTP_URL: smtp.url,
    SMS_SERVICE_URL: sms.url,
    FILE_SERVICE_URL: files.url,
    CHANNEL_RETRIES: '2',
  });
  base = server.base;
});

test.after(async () => {
  await server?.close();
  await client?.close();
  await Promise.all([mongo?.stop(), smtp?.stop(), sms?.stop(), files?.stop()]);
});

test('POST /send with a template: the email reaches the SMTP server, rendered, once per user', async () => {
  const before = smtp.messages.length;
  const answer = await post('/send', {
    channels: ['email'],
    recipients: ['ada'],
    clusters: ['north'],
    templateId: 'welcome',
    data: { when: '2026-01-02T23:30:00Z' },
    emailSender: 'clinic@example.com',
    emailCarbonCopies: ['cc@example.com'],
  });
  assert.equal(answer.status, 200);
  assert.deepEqual(await answer.json(), { failures: [] });
  const sent = smtp.messages.slice(before);
  assert.equal(sent.length, 2, 'ada is reached by id and by cluster, messaged once; bob by cluster');
  const toAda = sent.find((m) => m.to.includes('ada@example.com'));
  assert.ok(toAda, 'ada got the email');
  assert.equal(toAda.from, 'clinic@example.com');
  assert.ok(toAda.to.includes('cc@example.com'), 'the carbon copy is a recipient');
  assert.match(toAda.data, /Subject: Hello Ada\r\n/);
  assert.match(
    toAda.data,
    /\r\n\r\nWelcome, Ada Lovelace\. Your visit: 03\/01\/2026 00:30/,
    'Rome is past midnight',
  );
  const toBob = sent.find((m) => m.to.includes('bob@example.com'));
  assert.match(toBob?.data ?? '', /Subject: Hello Bob\r\n/, 'each recipient sees its own record');
});

test('POST /send with title and content on SMS: the SMS service gets it; a user without a phone is skipped', async () => {
  const before = sms.calls.length;
  const answer = await post('/send', {
    channels: ['sms'],
    groups: ['patients', 'doctors'],
    messageTitle: 't',
    messageContent: 'Hi {{user.name}}, code {{data.code}}',
    data: { code: 'A<1>' },
  });
  assert.equal(answer.status, 200);
  assert.deepEqual(await answer.json(), { failures: [] });
  const calls = sms.calls.slice(before);
  assert.ok(calls.every((c) => c.path === '/send'));
  assert.deepEqual(
    calls.map((c) => c.body).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
    [
      { receiver: '+391', body: 'Hi Ada, code A&lt;1&gt;' },
      { receiver: '+393', body: 'Hi , code A&lt;1&gt;' },
    ],
    '{{ }} escapes HTML; eve has no name',
  );
});

test('emailAttachments from the file service (names and objects); a missing file or more than 15 MB fails the delivery', async () => {
  const before = smtp.messages.length;
  const base64 = Buffer.from('%PDF-1.4 report').toString('base64');
  const ok = await post('/send', {
    channels: ['email'],
    recipients: ['ada'],
    messageTitle: 'Report',
    messageContent: 'attached',
    emailAttachments: ['report.pdf', { file: 'report.pdf', name: 'copy.pdf' }],
  });
  assert.deepEqual(await ok.json(), { failures: [] });
  const mail = smtp.messages[before]?.data ?? '';
  assert.match(mail, /filename=report\.pdf/);
  assert.match(mail, /filename=copy\.pdf/);
  assert.ok(mail.includes(base64) || mail.includes('%PDF-1.4 report'), 'the file content (base64 or 7bit)');
  for (const file of ['missing.pdf', 'huge.bin']) {
    const answer = await post('/send', {
      channels: ['email'],
      recipients: ['ada'],
      messageTitle: 't',
      messageContent: 'c',
      emailAttachments: [file],
    });
    const { failures } = (await answer.json()) as { failures: { error: string }[] };
    assert.equal(failures.length, 1, file);
    assert.match(failures[0]?.error ?? '', file === 'huge.bin' ? /larger than/ : /404/);
  }
  assert.equal(smtp.messages.length - before, 1, 'no email without its attachments');
});

test('POST /send with an idempotency key: the same key again answers the first answer and sends nothing', async () => {
  const send = (key: string) =>
    fetch(`${base}/send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify({
        channels: ['sms'],
        recipients: ['eve'],
        messageTitle: 't',
        messageContent: 'once',
      }),
    });
  const before = sms.calls.length;
  sms.failWith(400, 1);
  const first = (await (await send('k-42')).json()) as { failures: unknown[] };
  assert.equal(first.failures.length, 1);
  const again = await send('k-42');
  assert.equal(again.status, 200);
  assert.deepEqual(await again.json(), first, 'the stored answer, failures included');
  assert.equal(sms.calls.length - before, 1, 'sent once');
  assert.deepEqual(await (await send('k-43')).json(), { failures: [] }, 'another key sends');
  assert.equal(sms.calls.length - before, 2);
  const unknownTemplate = () =>
    fetch(`${base}/send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': 'k-44' },
      body: JSON.stringify({ channels: ['sms'], recipients: ['eve'], templateId: 'not-yet' }),
    });
  assert.equal((await unknownTemplate()).status, 404);
  assert.equal((await unknownTemplate()).status, 404, 'a failed request released its key');
});

test('a channel service down then back: retried with backoff, no failure', async () => {
  sms.failWith(503, 2);
  const before = sms.calls.length;
  const answer = await post('/send', {
    channels: ['sms'],
    recipients: ['eve'],
    messageTitle: 't',
    messageContent: 'c',
  });
  assert.deepEqual(await answer.json(), { failures: [] });
  assert.equal(sms.calls.length - before, 3, 'two 503s, then delivered');
});

test('a channel service that stays down: the delivery is listed in failures', async () => {
  sms.failWith(503, 3);
  const answer = await post('/send', {
    channels: ['sms', 'email'],
    recipients: ['ada'],
    messageTitle: 't',
    messageContent: 'c',
  });
  assert.equal(answer.status, 200);
  const { failures } = (await answer.json()) as {
    failures: { userId: string; channel: string; error: string }[];
  };
  assert.equal(failures.length, 1, 'only the failed delivery, not the email');
  assert.equal(failures[0]?.userId, 'ada');
  assert.equal(failures[0]?.channel, 'sms');
  assert.match(failures[0]?.error ?? '', /503/);
});

test('a 4xx from a channel service is not retried', async () => {
  sms.failWith(400, 1);
  const before = sms.calls.length;
  const { failures } = (await (
    await post('/send', { channels: ['sms'], recipients: ['eve'], messageTitle: 't', messageContent: 'c' })
  ).json()) as { failures: unknown[] };
  assert.equal(failures.length, 1);
  assert.equal(sms.calls.length - before, 1);
});

test('POST /send errors: validation (every problem listed), inactive channel, unknown template', async () => {
  const invalid = await post('/send', { channels: [] });
  assert.equal(invalid.status, 400);
  const body = (await invalid.json()) as { statusCode: number; error: string; message: string };
  assert.equal(body.statusCode, 400);
  assert.equal(body.error, 'Bad Request');
  assert.match(body.message, /channels/);
  assert.match(body.message, /recipients, clusters or groups/);
  const inactive = await post('/send', {
    channels: ['push'],
    recipients: ['ada'],
    messageTitle: 't',
    messageContent: 'c',
  });
  assert.equal(inactive.status, 400);
  assert.match(((await inactive.json()) as { message: string }).message, /not active: push/);
  const missing = await post('/send', { channels: ['email'], recipients: ['ada'], templateId: 'nope' });
  assert.equal(missing.status, 404);
  const notJson = await fetch(`${base}/send`, { method: 'POST', body: '{' });
  assert.equal(notJson.status, 400);
});

test('event settings: create, list, 409 on a duplicate event name, patch, delete, 404', async () => {
  const created = await post('/event-settings/', {
    eventName: 'ACME/Shipped/v1',
    supportedChannels: ['email'],
  });
  assert.equal(created.status, 200);
  const { _id } = (await created.json()) as { _id: string };
  const duplicate = await post('/event-settings/', { eventName: 'ACME/Shipped/v1' });
  assert.equal(duplicate.status, 409);
  assert.equal(((await duplicate.json()) as { statusCode: number }).statusCode, 409);
  const list = (await (await fetch(`${base}/event-settings/`)).json()) as { eventName: string }[];
  assert.ok(list.some((s) => s.eventName === 'ACME/Shipped/v1'));
  const patched = await patch(`/event-settings/${_id}`, { $set: { supportedChannels: ['email', 'sms'] } });
  assert.deepEqual(((await patched.json()) as { supportedChannels: string[] }).supportedChannels, [
    'email',
    'sms',
  ]);
  assert.equal((await fetch(`${base}/event-settings/${_id}`, { method: 'DELETE' })).status, 204);
  assert.equal((await fetch(`${base}/event-settings/${_id}`, { method: 'DELETE' })).status, 404);
});

test('templates: created, 409 on a duplicate name, listed with or without the trailing slash, filtered', async () => {
  const created = await post('/templates', { name: 'reminder', smsMessage: 'Remember {{what}}' });
  assert.equal(created.status, 200);
  const duplicate = await post('/templates/', { name: 'reminder' });
  assert.equal(duplicate.status, 409);
  assert.match(((await duplicate.json()) as { message: string }).message, /"reminder"/);
  for (const path of ['/templates', '/templates/']) {
    const list = (await (await fetch(`${base}${path}?name=reminder`)).json()) as { name: string }[];
    assert.deepEqual(
      list.map((t) => t.name),
      ['reminder'],
    );
  }
  assert.equal((await post('/templates', { smsMessage: 'no name' })).status, 400);
  assert.equal((await fetch(`${base}/templates`, { method: 'PUT' })).status, 405);
});

test('notification settings: the reference rules (template exists and has the channel, channel active, no repeated values); PATCH checked too', async () => {
  const cases: [unknown, RegExp][] = [
    [{ eventName: 'E/v1', templateName: 'nope', channels: ['email'] }, /template "nope" not found/],
    [{ eventName: 'E/v1', templateName: 'welcome', channels: ['push'] }, /not enabled.*push/],
    [{ eventName: 'E/v1', templateName: 'reminder', channels: ['email'] }, /no message for: email/],
    [{ eventName: 'E/v1', templateName: 'welcome', channels: ['email', 'email'] }, /repeated values/],
    [
      { eventName: 'E/v1', templateName: 'welcome', channels: ['email'], reminders: ['P1D', 'P1D'] },
      /repeated values/,
    ],
    [
      { eventName: 'E/v1', templateName: 'welcome', channels: ['email'], reminders: ['P1M'] },
      /ISO 8601 duration/,
    ],
  ];
  for (const [body, message] of cases) {
    const answer = await post('/notification-settings', body);
    assert.equal(answer.status, 400, JSON.stringify(body));
    assert.match(((await answer.json()) as { message: string }).message, message);
  }
  const created = await post('/notification-settings', {
    eventName: 'E/v1',
    templateName: 'welcome',
    channels: ['email'],
  });
  const { _id } = (await created.json()) as { _id: string };
  assert.equal(
    (await patch(`/notification-settings/${_id}`, { $set: { templateName: 'reminder' } })).status,
    400,
    'reminder has no email',
  );
  const patched = await patch(`/notification-settings/${_id}`, {
    $set: { templateName: 'reminder', channels: ['sms'] },
  });
  assert.equal(patched.status, 200);
  assert.equal((await patch('/notification-settings/nope', { $set: { channels: ['sms'] } })).status, 404);
});

test('notification settings: 409 on a second one with the same event, template and selectors, on POST and PATCH', async () => {
  const setting = { eventName: 'Dup/v1', templateName: 'welcome', channels: ['email'], group: 'doctors' };
  assert.equal((await post('/notification-settings', setting)).status, 200);
  const again = await post('/notification-settings', { ...setting, channels: ['sms'] });
  assert.equal(again.status, 409);
  assert.deepEqual(await again.json(), {
    statusCode: 409,
    error: 'Conflict',
    message:
      'notification settings for "Dup/v1" with template "welcome" and the same user, group, cluster and role already exist',
  });
  const other = await post('/notification-settings', { ...setting, cluster: 'north' });
  assert.equal(other.status, 200, 'one more selector: another audience');
  const { _id } = (await other.json()) as { _id: string };
  assert.equal(
    (await patch(`/notification-settings/${_id}`, { $set: { cluster: 'south' } })).status,
    200,
    'itself is no duplicate',
  );
  const third = (await (await post('/notification-settings', { ...setting, cluster: 'east' })).json()) as {
    _id: string;
  };
  assert.equal(
    (await patch(`/notification-settings/${third._id}`, { $set: { cluster: 'south' } })).status,
    409,
  );
  const count = async (query: string) =>
    (await (await fetch(`${base}/notification-settings/count?${query}`)).json()) as number;
  assert.equal(await count('eventName=Dup/v1'), 3);
  assert.equal(await count('eventName=Dup/v1&cluster=south'), 1);
});

test('an unknown event: 400 "Unknown event", stored as ERROR', async () => {
  const answer = await post('/notification-events/', { id: 'e-unknown', name: 'Nobody/Knows/v1' });
  assert.equal(answer.status, 400);
  assert.equal(((await answer.json()) as { message: string }).message, 'Unknown event');
  const stored = await db.collection('events').findOne({ _id: 'e-unknown' as never });
  assert.equal(stored?.status, 'ERROR');
});

test('an event that fails its event setting schema: 400, ERROR', async () => {
  await post('/event-settings/', {
    eventName: 'ACME/Strict/v1',
    eventSchema: { type: 'object', required: ['key'] },
  });
  const answer = await post('/notification-events/', { id: 'e-strict', name: 'ACME/Strict/v1' });
  assert.equal(answer.status, 400);
  assert.match(((await answer.json()) as { message: string }).message, /key/);
});

test('an event: settings resolved per user, sent, notifications stored; the same event again sends nothing', async () => {
  await post('/notification-settings', {
    eventName: 'AM/AppointmentCreated/v1',
    templateName: 'appointment-created',
    group: 'patients',
    channels: ['email', 'sms'],
  });
  await post('/notification-settings', {
    eventName: 'AM/AppointmentCreated/v1',
    templateName: 'appointment-created',
    user: 'eve',
    rule: 'IGNORE',
    channels: ['sms'],
  });
  await post('/notification-settings', {
    eventName: 'AM/AppointmentCreated/v1',
    templateName: 'appointment-created',
    user: 'ada',
    channels: ['email'],
  });
  const mails = smtp.messages.length;
  const texts = sms.calls.length;
  const event = {
    id: 'e-1',
    name: 'AM/AppointmentCreated/v1',
    key: 'apt-1',
    at: '10:00',
    participantIds: ['ada', 'bob', 'eve'],
  };
  const answer = await post('/notification-events/', event);
  assert.equal(answer.status, 200);
  const { notifications } = (await answer.json()) as {
    notifications: { recipient: string; messages: { channel: string; status: string }[] }[];
  };
  assert.deepEqual(
    notifications.map((n) => n.recipient).sort(),
    ['ada', 'bob'],
    'eve is IGNOREd by her own setting',
  );
  assert.deepEqual(
    notifications.find((n) => n.recipient === 'bob')?.messages.map((m) => [m.channel, m.status]),
    [['email', 'SUCCESS']],
  );
  assert.equal(smtp.messages.length - mails, 2);
  const toBob = smtp.messages.slice(mails).find((m) => m.to.includes('bob@example.com'));
  assert.match(
    toBob?.data ?? '',
    /\r\n\r\nAt 10:00, Bob/,
    'the extra field was merged into the payload, `data`',
  );
  assert.equal(sms.calls.length - texts, 0, 'bob has no phone, ada gets email only, eve is ignored');
  const again = await post('/notification-events/', event);
  assert.equal(again.status, 200);
  assert.equal(((await again.json()) as { notifications: unknown[] }).notifications.length, 2);
  assert.equal(smtp.messages.length - mails, 2, 'nothing sent twice');
  const count = async (query: string) =>
    (await (await fetch(`${base}/notifications/count?${query}`)).json()) as number;
  assert.equal(await count('eventId=e-1'), 2);
  assert.equal(await count('eventId=e-1&recipient=bob'), 1);
  assert.equal(await count('eventName=Nobody/v1'), 0);
  const listed = (await (
    await fetch(`${base}/notifications?recipient=ada&eventKey=apt-1`)
  ).json()) as unknown[];
  assert.equal(listed.length, 1);
  const stored = (await (await fetch(`${base}/notifications/e-1:ada`)).json()) as { event: { name: string } };
  assert.equal(stored.event.name, 'AM/AppointmentCreated/v1');
  assert.equal((await fetch(`${base}/notifications/nope`)).status, 404);
  assert.equal((await db.collection('events').findOne({ _id: 'e-1' as never }))?.status, 'PROCESSED');
});

test('an event received but not sent before a crash (RECEIVED): a redelivery sends it', async () => {
  await db
    .collection('events')
    .insertOne({ _id: 'e-crashed' as never, name: 'AM/AppointmentCreated/v1', status: 'RECEIVED' });
  const mails = smtp.messages.length;
  const answer = await post('/notification-events/', {
    id: 'e-crashed',
    name: 'AM/AppointmentCreated/v1',
    at: 'noon',
    participantIds: ['ada', 'bob'],
  });
  assert.equal(answer.status, 200);
  assert.equal(smtp.messages.length - mails, 2);
});

const as = (user: string, groups = '') => ({
  miauserid: user,
  miausergroups: groups,
  'content-type': 'application/json',
});

test('user routes without a user: 401', async () => {
  for (const path of ['/user/events', '/user-notification-settings']) {
    assert.equal((await fetch(`${base}${path}`)).status, 401);
  }
});

test('GET /user/events: visible events with supported and enabled channels', async () => {
  await post('/event-settings/', {
    eventName: 'Staff/Only/v1',
    userGroups: ['doctors'],
    supportedChannels: ['sms', 'push'],
  });
  const forEve = (await (await fetch(`${base}/user/events`, { headers: as('eve', 'patients') })).json()) as {
    eventName: string;
    supportedChannels: string[];
    enabledChannels: string[];
  }[];
  assert.ok(!forEve.some((e) => e.eventName === 'Staff/Only/v1'), 'not visible outside its groups');
  const forAda = (await (
    await fetch(`${base}/user/events`, { headers: as('ada', 'doctors') })
  ).json()) as typeof forEve;
  assert.deepEqual(
    forAda.find((e) => e.eventName === 'Staff/Only/v1')?.supportedChannels,
    ['sms'],
    'push is not active',
  );
  const created = forAda.find((e) => e.eventName === 'AM/AppointmentCreated/v1');
  assert.deepEqual(
    created?.supportedChannels,
    ['email', 'sms'],
    'a default event without settings: the active channels',
  );
});

test('PATCH /user/notification-settings: 403 invisible event, 400 unsupported channel, creates the user own setting inheriting the template', async () => {
  const hidden = await fetch(`${base}/user/notification-settings`, {
    method: 'PATCH',
    headers: as('eve', 'patients'),
    body: JSON.stringify({ eventName: 'Staff/Only/v1', enabledChannels: ['sms'] }),
  });
  assert.equal(hidden.status, 403);
  const unsupported = await fetch(`${base}/user/notification-settings`, {
    method: 'PATCH',
    headers: as('ada', 'doctors'),
    body: JSON.stringify({ eventName: 'Staff/Only/v1', enabledChannels: ['email'] }),
  });
  assert.equal(unsupported.status, 400);
  await post('/notification-settings', {
    eventName: 'Custom/Reminder/v1',
    templateName: 'welcome',
    group: 'patients',
    channels: ['email'],
  });
  await post('/event-settings/', { eventName: 'Custom/Reminder/v1' });
  const change = () =>
    fetch(`${base}/user/notification-settings`, {
      method: 'PATCH',
      headers: as('bob', 'patients'),
      body: JSON.stringify({ eventName: 'Custom/Reminder/v1', enabledChannels: ['sms'] }),
    });
  assert.deepEqual(await (await change()).json(), { updated: 0, created: 1 });
  const own = (await (
    await fetch(`${base}/user-notification-settings`, { headers: as('bob', 'patients') })
  ).json()) as {
    _id: string;
    user?: string;
    templateName: string;
    channels: string[];
  }[];
  const mine = own.find((s) => s.user === 'bob');
  assert.equal(mine?.templateName, 'welcome', 'inherited from the group setting');
  assert.deepEqual(mine?.channels, ['sms']);
  assert.ok(
    own.some((s) => s.user === undefined),
    'the group setting reaching bob is listed too',
  );
  const events = (await (await fetch(`${base}/user/events`, { headers: as('bob', 'patients') })).json()) as {
    eventName: string;
    enabledChannels: string[];
  }[];
  assert.deepEqual(events.find((e) => e.eventName === 'Custom/Reminder/v1')?.enabledChannels, [
    'email',
    'sms',
  ]);
  const noTemplate = await fetch(`${base}/user/notification-settings`, {
    method: 'PATCH',
    headers: as('bob', 'patients'),
    body: JSON.stringify({ eventName: 'TMM/TherapyDeleted/v1', enabledChannels: ['sms'] }),
  });
  assert.equal(noTemplate.status, 400, 'nothing to inherit a template from');
  const renamed = await fetch(`${base}/user-notification-settings/${mine?._id}`, {
    method: 'PATCH',
    headers: as('bob', 'patients'),
    body: JSON.stringify({ $set: { user: 'eve' } }),
  });
  assert.equal(renamed.status, 400);
  const notHis = await fetch(`${base}/user-notification-settings/${mine?._id}`, {
    method: 'DELETE',
    headers: as('eve'),
  });
  assert.equal(notHis.status, 404);
  const deleted = await fetch(`${base}/user-notification-settings/${mine?._id}`, {
    method: 'DELETE',
    headers: as('bob'),
  });
  assert.equal(deleted.status, 204);
});

test('CRUD-proxy PATCH takes the CRUD’s update operators and validates the resulting document; a body it does not understand is a 400 that changes nothing', async () => {
  const created = await post('/notification-settings', {
    eventName: 'Patch/v1',
    templateName: 'welcome',
    channels: ['email'],
    group: 'doctors',
    reminders: ['P1D'],
  });
  const { _id } = (await created.json()) as { _id: string };
  const path = `/notification-settings/${_id}`;
  const read = async () => {
    const { _id: _, ...fields } = (await (await fetch(`${base}${path}`)).json()) as Record<string, unknown>;
    return fields;
  };
  const applied: [unknown, Record<string, unknown>][] = [
    [
      { $set: { channels: ['email', 'sms'] }, $unset: { reminders: true } },
      { eventName: 'Patch/v1', templateName: 'welcome', channels: ['email', 'sms'], group: 'doctors' },
    ],
    [
      { $addToSet: { emitters: 'app' }, $push: { hours: '08:00-12:00' } },
      {
        eventName: 'Patch/v1',
        templateName: 'welcome',
        channels: ['email', 'sms'],
        group: 'doctors',
        emitters: ['app'],
        hours: ['08:00-12:00'],
      },
    ],
    [
      { $addToSet: { emitters: { $each: ['app', 'web'] } }, $pull: { hours: '08:00-12:00' } },
      {
        eventName: 'Patch/v1',
        templateName: 'welcome',
        channels: ['email', 'sms'],
        group: 'doctors',
        emitters: ['app', 'web'],
        hours: [],
      },
    ],
  ];
  for (const [body, expected] of applied) {
    const answer = await patch(path, body);
    assert.equal(answer.status, 200, JSON.stringify(body));
    assert.deepEqual(await read(), expected, JSON.stringify(body));
  }
  const before = await read();
  const refused: [unknown, RegExp][] = [
    [{ channels: ['sms'] }, /not update operators: channels/],
    [{ $rename: { group: 'cluster' } }, /not update operators: \$rename/],
    [{}, /no field to change/],
    [{ $set: { bogus: 1 } }, /bogus/],
    [{ $set: { channels: 'sms' } }, /\/channels/],
    [{ $unset: { templateName: '' } }, /\/templateName/],
    [{ $set: { channels: ['push'] } }, /not enabled.*push/],
    [{ $set: { _id: 'other' } }, /_id cannot change/],
    [{ $set: { '__proto__.polluted': 1 } }, /not a field path/],
    [{ $inc: { group: 1 } }, /not a number/],
  ];
  for (const [body, message] of refused) {
    const answer = await patch(path, body);
    assert.equal(answer.status, 400, JSON.stringify(body));
    assert.match(((await answer.json()) as { message: string }).message, message, JSON.stringify(body));
  }
  assert.deepEqual(await read(), before, 'nothing changed');
  assert.equal(({} as Record<string, unknown>).polluted, undefined);

  const template = (await (await post('/templates', { name: 'patchable', smsMessage: 'a' })).json()) as {
    _id: string;
  };
  const renamed = await patch(`/templates/${template._id}`, { $set: { smsMessage: 'Hi {{user.name}}' } });
  assert.equal(renamed.status, 200);
  assert.equal(((await renamed.json()) as { smsMessage: string }).smsMessage, 'Hi {{user.name}}');
  assert.equal((await patch(`/templates/${template._id}`, { $set: { name: 'welcome' } })).status, 409);
  const event = (await (
    await post('/event-settings/', { eventName: 'Patch/v1', userGroups: ['a'] })
  ).json()) as {
    _id: string;
  };
  const unset = await patch(`/event-settings/${event._id}`, { $unset: { userGroups: '' } });
  assert.deepEqual(await unset.json(), { _id: event._id, eventName: 'Patch/v1' });
});

test('PATCH /user-notification-settings/:id: update operators on the user’s own setting; any change of `user` is a 400', async () => {
  const created = await post('/notification-settings', {
    eventName: 'Own/v1',
    templateName: 'welcome',
    channels: ['email'],
    user: 'bob',
  });
  const { _id } = (await created.json()) as { _id: string };
  const own = (body: unknown, user = 'bob') =>
    fetch(`${base}/user-notification-settings/${_id}`, {
      method: 'PATCH',
      headers: as(user),
      body: JSON.stringify(body),
    });
  for (const body of [
    { $set: { user: 'eve' } },
    { $unset: { user: '' } },
    { $set: { user: 'eve' }, $unset: { user: '' } },
  ]) {
    const answer = await own(body);
    assert.equal(answer.status, 400, JSON.stringify(body));
    assert.match(
      ((await answer.json()) as { message: string }).message,
      /user of a setting cannot be changed/,
    );
  }
  assert.equal((await own({ channels: ['sms'] })).status, 400, 'plain fields are no update');
  assert.equal((await own({ $set: { channels: ['sms'] } }, 'eve')).status, 404, 'not hers');
  const changed = await own({ $set: { channels: ['sms'], user: 'bob' } });
  assert.equal(changed.status, 200);
  assert.deepEqual(((await changed.json()) as { channels: string[] }).channels, ['sms']);
  assert.deepEqual(
    ((await (await fetch(`${base}/notification-settings/${_id}`)).json()) as { channels: string[] }).channels,
    ['sms'],
  );
});

test('GET /documentation/json: every route, the body schemas from the zod schemas', async () => {
  const doc = (await (await fetch(`${base}/documentation/json`)).json()) as {
    openapi: string;
    paths: Record<
      string,
      Record<string, { requestBody?: { content: Record<string, { schema: { required?: string[] } }> } }>
    >;
  };
  assert.equal(doc.openapi, '3.1.0');
  for (const path of [
    '/send',
    '/saga/send',
    '/notifications/count',
    '/templates/count',
    '/notification-events',
    '/event-settings/{id}',
    '/templates',
    '/user/notification-settings',
  ]) {
    assert.ok(doc.paths[path], path);
  }
  assert.deepEqual(doc.paths['/send']?.post?.requestBody?.content['application/json']?.schema.required, [
    'channels',
  ]);
});

test('the status routes answer with the service name', async () => {
  const ready = await fetch(`${base}/-/ready`);
  assert.equal(ready.status, 200);
  assert.equal(((await ready.json()) as { status: string }).status, 'OK');
});
// Found by Schemathesis: a free-form member with a NUL in a key reached MongoDB's insert (a 500).
test('a key with a NUL character anywhere in the body is a 400 naming its path', async () => {
  const answer = await post('/event-settings', { eventName: 'nul', handlerConfig: { 'a\u0000b': 1 } });
  assert.equal(answer.status, 400);
  assert.match(((await answer.json()) as { message: string }).message, /handlerConfig\/a\\u0000b.*NUL/);
});

test.run();
