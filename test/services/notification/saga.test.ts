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
let smtp: SmtpSink;
let flowManager: HttpSink;
let sms: HttpSink;
let server: NotificationService;

const command = (key: string, messagePayload: Record<string, unknown>) =>
  server.post('/saga/send', { key, value: { messageLabel: 'sendNotification', messagePayload } });

test.before(async () => {
  [mongo, smtp, flowManager, sms] = await Promise.all([
    startMongo(),
    startSmtpSink(),
    startHttpSink(),
    startHttpSink(),
  ]);
  const client = await MongoClient.connect(mongo.url);
  await client
    .db(mongo.database)
    .collection('users')
    .insertMany([
      { _id: 'ada' as never, emailAddress: 'ada@example.com', phoneNumber: '+391' },
      { _id: 'bob' as never, emailAddress: 'bob@example.com' },
    ]);
  await client.close();
  const path = join(mkdtempSync(join(tmpdir(), 'saga-')), 'config.json');
  writeFileSync(
    path,
    JSON.stringify({
      activeChannels: ['email', 'sms'],
      sender: { email: 'clinic@example.com' },
      flowManagerConfiguration: {
        serviceUrl: flowManager.url,
        successEventLabel: 'notificationSent',
        failEventLabel: 'notificationFailed',
        metadataSchema: {
          channels: 'notification.channels',
          recipients: ['buyer.id', 'seller.id'],
          messageTitle: 'notification.title',
          messageContent: 'notification.text',
        },
      },
    }),
  );
  server = await startService({
    MONGODB_URL: mongo.url,
    MONGODB_DATABASE: mongo.database,
    SMTP_URL: smtp.url,
    SMS_SERVICE_URL: sms.url,
    CONFIGURATION_PATH: path,
    CHANNEL_RETRIES: '0',
  });
});

test.after(async () => {
  await server?.close();
  await Promise.all([mongo?.stop(), smtp?.stop(), flowManager?.stop(), sms?.stop()]);
});

const events = () => flowManager.calls.map((call) => [call.path, call.body]);

test('POST /saga/send: the fields read at the metadata paths, sent, the success event back to the Flow Manager; the same command again sends nothing', async () => {
  const metadata = {
    buyer: { id: 'ada' },
    seller: { id: 'bob' },
    notification: {
      channels: ['email'],
      title: 'Order {{data.value.messagePayload.order}}',
      text: 'Shipped.',
    },
    order: 'A-1',
  };
  const answer = await command('saga-1', metadata);
  assert.equal(answer.status, 200);
  assert.equal(await answer.text(), '', 'an empty body');
  assert.deepEqual(
    smtp.messages.map((m) => [m.to[0], /Subject: (.*)/.exec(m.data)?.[1]]).sort(),
    [
      ['ada@example.com', 'Order A-1'],
      ['bob@example.com', 'Order A-1'],
    ],
    'both paths of recipients; data is the command',
  );
  assert.deepEqual(events(), [
    ['/event', { key: 'saga-1', value: { messageLabel: 'notificationSent', messagePayload: {} } }],
  ]);
  assert.equal((await command('saga-1', metadata)).status, 200);
  assert.equal(smtp.messages.length, 2, 'a redelivered command sends nothing twice');
});

test('POST /saga/send: an invalid command is a 400 and a fail event; a bad command body a 400 with no event', async () => {
  flowManager.calls.length = 0;
  const answer = await command('saga-2', { buyer: { id: 'ada' }, notification: { channels: ['email'] } });
  assert.equal(answer.status, 400);
  assert.match(((await answer.json()) as { message: string }).message, /messageTitle and messageContent/);
  assert.deepEqual(events(), [
    ['/event', { key: 'saga-2', value: { messageLabel: 'notificationFailed', messagePayload: {} } }],
  ]);
  const bad = await server.post('/saga/send', { value: {} });
  assert.equal(bad.status, 400);
  assert.equal(flowManager.calls.length, 1, 'no saga id: nobody to tell');
});

test('POST /saga/send: a delivery that fails (the SMS service refuses it) sends the fail event', async () => {
  flowManager.calls.length = 0;
  sms.failWith(400, 1);
  const answer = await command('saga-5', {
    buyer: { id: 'ada' },
    notification: { channels: ['sms'], title: 'x', text: 'Your order shipped' },
  });
  assert.equal(answer.status, 200);
  assert.equal(sms.calls.length, 1);
  assert.deepEqual(events(), [
    ['/event', { key: 'saga-5', value: { messageLabel: 'notificationFailed', messagePayload: {} } }],
  ]);
});

test('POST /saga/send: the Flow Manager down does not fail the command (the event is logged as lost)', async () => {
  flowManager.calls.length = 0;
  flowManager.failWith(503, 1);
  const answer = await command('saga-4', {
    buyer: { id: 'ada' },
    notification: { channels: ['email'], title: 'x', text: 'y' },
  });
  assert.equal(answer.status, 200);
  assert.equal(flowManager.calls.length, 1, 'tried once (no retries configured), logged');
});

test.run();
