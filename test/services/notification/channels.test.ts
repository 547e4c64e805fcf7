/**
 * What each channel service receives, field by field, for a template using every channel's
 * fields with the reference's `data` and `user`; WhatsApp's template rule; template attachments
 * merged with the request's.
 */
import * as assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { type HttpSink, startHttpSink } from '../../support/http-sink.ts';
import { type MongoFixture, startMongo } from '../../support/mongo.ts';
import { type SmtpSink, startSmtpSink } from '../../support/smtp-sink.ts';
import { test } from '../../support/suite.ts';
import { type NotificationService, startService } from './service-fixture.ts';

let mongo: MongoFixture;
let client: MongoClient;
let smtp: SmtpSink;
/** Every channel service under its own path, and the file service. */
let peers: HttpSink;
let server: NotificationService;

const CONFIGURATION = {
  activeChannels: ['email', 'sms', 'voice', 'push', 'whatsapp'],
  sender: { email: 'clinic@example.com', sms: 'Clinic', voice: '+390001', whatsappPhoneNumberId: 'wa-123' },
  androidIntentAction: 'eu.example.OPEN',
};

const VISIT = {
  _id: 'visit' as never,
  name: 'visit',
  emailTitle: 'Visit for {{user.name}}',
  emailMessage: 'Dear {{user.name}} {{user.surname}}, code {{data.code}}.',
  emailAttachments: [{ file: 'consent.pdf' }],
  smsMessage: 'SMS {{data.code}} {{user.name}}',
  voiceMessage: "Voice: {{user.name}}, {{dateFormat data.startDate format='D MMMM HH:mm' tz='Europe/Rome'}}",
  pushTitle: 'Push {{user.name}}',
  pushSubtitle: 'Code {{data.code}}',
  pushMessage: '{{data.note}}',
  pushData: '{"android":{"data":{"note":"{{data.note}}","user":"{{user.surname}}"}},"badge":{{data.badge}} }',
  whatsappTemplateName: 'visit_reminder',
  whatsappTemplateParameters: "{{user.name}},{{dateFormat data.startDate format='DD/MM/YYYY'}},{{data.code}}",
};

const callsTo = (path: string, from: number) =>
  peers.calls
    .slice(from)
    .filter((c) => c.path === path)
    .map((c) => c.body);

test.before(async () => {
  [mongo, smtp, peers] = await Promise.all([
    startMongo(),
    startSmtpSink(),
    startHttpSink({
      '/download/consent.pdf': Buffer.from('consent'),
      '/download/report.pdf': Buffer.from('report'),
    }),
  ]);
  client = await MongoClient.connect(mongo.url);
  const db = client.db(mongo.database);
  await db.collection('users').insertMany([
    {
      _id: 'ada' as never,
      name: 'Ada',
      surname: 'Lovelace',
      emailAddress: 'ada@example.com',
      phoneNumber: '+391',
      deviceToken: 'token-ada',
    },
  ]);
  await db
    .collection('message_templates')
    .insertMany([VISIT, { _id: 'sms-only' as never, name: 'sms-only', smsMessage: 'x' }]);
  const configuration = join(mkdtempSync(join(tmpdir(), 'notification-channels-')), 'config.json');
  writeFileSync(configuration, JSON.stringify(CONFIGURATION));
  server = await startService({
    MONGODB_URL: mongo.url,
    MONGODB_DATABASE: mongo.database,
    CONFIGURATION_PATH: configuration,
    SMTP_URL: smtp.url,
    SMS_SERVICE_URL: `${peers.url}/sms`,
    VOICE_SERVICE_URL: `${peers.url}/voice`,
    PUSH_SERVICE_URL: `${peers.url}/push`,
    MESSAGING_SERVICE_URL: `${peers.url}/whatsapp`,
    FILE_SERVICE_URL: peers.url,
    CHANNEL_RETRIES: '0',
  });
});

test.after(async () => {
  await server?.close();
  await client?.close();
  await Promise.all([mongo?.stop(), smtp?.stop(), peers?.stop()]);
});

const DATA = { code: 'C-7', startDate: '2026-05-31T22:15:00Z', note: 'Bring "the" X-ray\nand ID', badge: 3 };

test('every channel’s request carries the reference’s fields, interpolated with data and user', async () => {
  const [calls, mails] = [peers.calls.length, smtp.messages.length];
  const answer = await server.post('/send', {
    channels: ['email', 'sms', 'voice', 'push', 'whatsapp'],
    recipients: ['ada'],
    templateId: 'visit',
    data: DATA,
    emailAttachments: [{ file: 'report.pdf' }],
  });
  assert.deepEqual(await answer.json(), { failures: [] });
  assert.deepEqual(callsTo('/sms/send', calls), [
    { sender: 'Clinic', receiver: '+391', body: 'SMS C-7 Ada' },
  ]);
  assert.deepEqual(callsTo('/voice/send', calls), [
    { sender: '+390001', receiver: '+391', body: 'Voice: Ada, 1 June 00:15' },
  ]);
  assert.deepEqual(callsTo('/push/send', calls), [
    {
      deviceToken: 'token-ada',
      title: 'Push Ada',
      subtitle: 'Code C-7',
      body: 'Bring &quot;the&quot; X-ray\nand ID',
      data: { android: { data: { note: 'Bring "the" X-ray\nand ID', user: 'Lovelace' } }, badge: 3 },
      androidIntentAction: 'eu.example.OPEN',
    },
  ]);
  assert.deepEqual(callsTo('/whatsapp/send', calls), [
    { sender: 'wa-123', receiver: '+391', templateName: 'visit_reminder', params: 'Ada,31/05/2026,C-7' },
  ]);
  const [mail] = smtp.messages.slice(mails);
  assert.ok(mail);
  assert.equal(mail.from, 'clinic@example.com');
  assert.deepEqual(mail.to, ['ada@example.com']);
  assert.match(mail.data, /Subject: Visit for Ada\r\n/);
  assert.match(mail.data, /Dear Ada Lovelace, code C-7\./);
  assert.deepEqual(
    [...mail.data.matchAll(/filename=(\S+)/g)].map((m) => m[1]),
    ['consent.pdf', 'report.pdf'],
    'the template’s attachments and the request’s: "they will be merged"',
  );
  assert.deepEqual(
    callsTo('/download/consent.pdf', calls).length + callsTo('/download/report.pdf', calls).length,
    2,
  );
});

test('WhatsApp needs a template name: an inline message or a template without one fails that delivery with the reference’s error', async () => {
  const calls = peers.calls.length;
  const error = 'Missing required template name for WhatsApp message';
  const inline = await server.post('/send', {
    channels: ['whatsapp', 'sms'],
    recipients: ['ada'],
    messageTitle: 'Hi',
    messageContent: 'Hi {{user.name}}',
  });
  assert.deepEqual(await inline.json(), { failures: [{ userId: 'ada', channel: 'whatsapp', error }] });
  const templated = await server.post('/send', {
    channels: ['whatsapp'],
    recipients: ['ada'],
    templateId: 'sms-only',
  });
  assert.deepEqual(await templated.json(), { failures: [{ userId: 'ada', channel: 'whatsapp', error }] });
  assert.deepEqual(callsTo('/whatsapp/send', calls), [], 'nothing reached the messaging service');
  assert.deepEqual(callsTo('/sms/send', calls), [{ sender: 'Clinic', receiver: '+391', body: 'Hi Ada' }]);
});

test('an event’s messages: data is the payload, user the record, on voice, push and WhatsApp', async () => {
  await server.post('/event-settings/', { eventName: 'ACME/VisitBooked/v1' });
  await server.post('/notification-settings', {
    eventName: 'ACME/VisitBooked/v1',
    templateName: 'visit',
    user: 'ada',
    channels: ['voice', 'push', 'whatsapp'],
  });
  const calls = peers.calls.length;
  const answer = await server.post('/notification-events/', {
    id: 'visit-1',
    name: 'ACME/VisitBooked/v1',
    payload: { ...DATA, code: 'E-1' },
  });
  assert.equal(answer.status, 200);
  assert.deepEqual(callsTo('/voice/send', calls), [
    { sender: '+390001', receiver: '+391', body: 'Voice: Ada, 1 June 00:15' },
  ]);
  assert.equal((callsTo('/push/send', calls)[0] as { subtitle: string }).subtitle, 'Code E-1');
  assert.deepEqual(callsTo('/whatsapp/send', calls), [
    { sender: 'wa-123', receiver: '+391', templateName: 'visit_reminder', params: 'Ada,31/05/2026,E-1' },
  ]);
});

test.run();
