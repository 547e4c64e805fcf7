import * as assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EnvError, HttpError } from '../../../services/kit/index.ts';
import { loadCustomHandlers } from '../../../services/notification/custom-handlers.ts';
import { test } from '../../support/suite.ts';
import { type ProcessorFixture, startProcessorFixture } from './processor-fixture.ts';

let f: ProcessorFixture;

/** The reference's documented example handler, as a user would write it (CommonJS). */
const SHIPPING_HANDLER = `
module.exports = async function handler(service, event, utils) {
  const { userId, deliveryDate } = event.payload;
  const recipients = await utils.getRecipients(service, { ids: [userId] });
  return recipients.map(async (recipient) => {
    const settings = await utils.getNotificationSettings(service, event, recipient);
    const merged = utils.mergeNotificationSettings(service, settings);
    const messages = utils.buildMessages(service, merged);
    const sent = await utils.sendMessages(service, event, recipient, messages);
    const reminders = utils.buildReminders(service, recipient, merged, deliveryDate);
    const reminderEvent = { ...event, name: 'ACME/DeliveryReminder/v1' };
    const set = await utils.setReminders(service, reminderEvent, recipient, reminders);
    return utils.mergeNotifications(service, event, recipient, [sent, set]);
  });
};
`;

/**
 * Sends its user the messages its settings build, each email with a custom attachment (the
 * reference's 2.3.0 `attachments` of a message); `payload.attachments` replaces them when given.
 */
const INVOICE_HANDLER = `
module.exports = async function handler(service, event, utils) {
  const [user] = await utils.getRecipients(service, { ids: [event.payload.userId] });
  const settings = utils.mergeNotificationSettings(service, await utils.getNotificationSettings(service, event, user));
  const attachments = event.payload.attachments ?? [{ file: 'invoice.pdf', name: 'invoice-A-2.pdf' }];
  const messages = utils.buildMessages(service, settings).map((m) => ({ ...m, attachments }));
  return [await utils.sendMessages(service, event, user, messages)];
};
`;

/** Aborts its user's reminders of the event's key, with the query the payload gives; keeps what it answers. */
const CANCEL_HANDLER = `
module.exports = async function handler(service, event, utils) {
  const [user] = await utils.getRecipients(service, { ids: [event.payload.userId] });
  const aborted = await utils.abortReminders(service, event, user, event.payload.query);
  globalThis.abortedByCancelHandler = aborted;
  return [];
};
`;

/** What a handler of `runReporting` left in `globalThis.handlerReport`. */
let reported = 0;
async function runReporting(
  code: string,
  event: { name: string; payload?: Record<string, unknown> },
): Promise<unknown> {
  const handlerName = `reporting-${++reported}.js`;
  await f.store.eventSettings.insertOne({ _id: handlerName, eventName: event.name, handlerName });
  const customHandlers = await loadCustomHandlers(folder({ [handlerName]: code }));
  const { events } = f.instance({ customHandlers });
  (globalThis as { handlerReport?: unknown }).handlerReport = undefined;
  await events.process({ id: `${handlerName}-event`, key: 'k', ...event }, { type: 'test' });
  return (globalThis as { handlerReport?: unknown }).handlerReport;
}

function folder(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'custom-handlers-'));
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
  return dir;
}

async function loadProblems(dir: string): Promise<readonly string[]> {
  try {
    await loadCustomHandlers(dir);
  } catch (error) {
    if (error instanceof EnvError) return error.problems;
    throw error;
  }
  return assert.fail('expected an EnvError');
}

test.before(async () => {
  f = await startProcessorFixture();
  await f.db.collection('users').insertMany([
    { _id: 'ada' as never, emailAddress: 'ada@c.test', groups: ['customers'], name: 'Ada' },
    { _id: 'bob' as never, emailAddress: 'bob@c.test', groups: ['customers'], name: 'Bob' },
    { _id: 'cy' as never, emailAddress: 'cy@c.test', phoneNumber: '+393', groups: ['buyers'], name: 'Cy' },
  ]);
  // The reference's interpolation in sendMessages: `data` the event payload, `user` the user's record.
  await f.store.templates.insertMany([
    {
      _id: 'shipped',
      name: 'shipped',
      emailTitle: 'Order {{data.order}} shipped, {{user.name}}',
      emailMessage: '.',
    },
    {
      _id: 'arriving',
      name: 'arriving',
      emailTitle: 'Order {{data.order}} arrives tomorrow, {{user.name}}',
      emailMessage: '.',
    },
    {
      _id: 'invoiced',
      name: 'invoiced',
      emailTitle: 'Invoice {{data.order}}',
      emailMessage: '.',
      emailAttachments: [{ file: 'terms.pdf' }],
      smsMessage: 'Invoice {{data.order}} sent by email',
    },
  ]);
  await f.store.eventSettings.insertMany([
    { _id: 'shipped', eventName: 'ACME/OrderShipped/v1', handlerName: 'acme-shipping-handler.js' },
    { _id: 'reminder', eventName: 'ACME/DeliveryReminder/v1' },
    { _id: 'broken', eventName: 'ACME/Broken/v1', handlerName: 'throws.mjs' },
    { _id: 'missing', eventName: 'ACME/Missing/v1', handlerName: 'nowhere.js' },
    { _id: 'invoiced', eventName: 'ACME/Invoiced/v1', handlerName: 'invoice.js' },
    { _id: 'delayed', eventName: 'ACME/OrderDelayed/v1', handlerName: 'acme-shipping-handler.js' },
    { _id: 'cancelled', eventName: 'ACME/OrderCancelled/v1', handlerName: 'cancel.js' },
  ]);
  await f.store.notificationSettings.insertMany(
    ['ACME/OrderShipped/v1', 'ACME/DeliveryReminder/v1', 'ACME/Broken/v1', 'ACME/OrderDelayed/v1'].map(
      (eventName) => ({
        _id: eventName,
        eventName,
        templateName: eventName === 'ACME/DeliveryReminder/v1' ? 'arriving' : 'shipped',
        group: 'customers',
        channels: ['email'],
        reminders: ['P1D'],
      }),
    ),
  );
  await f.store.notificationSettings.insertOne({
    _id: 'invoiced',
    eventName: 'ACME/Invoiced/v1',
    templateName: 'invoiced',
    user: 'cy',
    channels: ['email', 'sms'],
  });
});

test.after(async () => {
  await f?.stop();
});

test('custom handlers load from the folder by file name: CommonJS, ESM and TypeScript modules; other files ignored', async () => {
  const handlers = await loadCustomHandlers(
    folder({
      'a.js': 'module.exports = async () => []',
      'b.mjs': 'export default async function handler() {}',
      'c.ts': 'export default async (service: unknown) => [service];',
      'notes.md': '# not a handler',
    }),
  );
  assert.deepEqual([...handlers.keys()], ['a.js', 'b.mjs', 'c.ts']);
  assert.equal(typeof handlers.get('c.ts'), 'function');
  assert.equal((await loadCustomHandlers(undefined)).size, 0, 'no folder, no handlers');
});

test('a module that exports no function or does not load stops the service naming the file; so does a missing folder', async () => {
  const dir = folder({
    'good.js': 'module.exports = () => []',
    'number.js': 'module.exports = 42',
    'named.mjs': 'export const handler = () => []',
    'broken.js': 'module.exports = (',
  });
  const problems = await loadProblems(dir);
  assert.equal(problems.length, 3);
  assert.match(problems[0] ?? '', /^CUSTOM_HANDLERS_FOLDER: .*broken\.js does not load/);
  assert.match(
    problems[1] ?? '',
    /named\.mjs must export a function \(service, event, utils\), exports only \{handler\}/,
  );
  assert.match(problems[2] ?? '', /number\.js must export a function .*exports a number/);
  assert.deepEqual(await loadProblems(join(dir, 'nope')), [
    `CUSTOM_HANDLERS_FOLDER: cannot read the folder ${join(dir, 'nope')} (ENOENT: no such file or directory, scandir '${join(dir, 'nope')}')`,
  ]);
});

test('the reference’s example handler: sends to the users it picks, sets their reminders, redelivered sends nothing twice; its reminder fires', async () => {
  f.clock = new Date('2026-03-01T08:00:00Z');
  const customHandlers = await loadCustomHandlers(
    folder({
      'acme-shipping-handler.js': SHIPPING_HANDLER,
    }),
  );
  const { events, tick } = f.instance({ customHandlers });
  const event = {
    id: 'o-1',
    name: 'ACME/OrderShipped/v1',
    key: 'order-1',
    payload: { userId: 'ada', order: 'A-1', deliveryDate: '2026-03-05T10:00:00Z' },
  };
  const before = f.smtp.messages.length;
  const { notifications } = await events.process(event, { type: 'test' });
  assert.deepEqual(
    f.mailsSince(before),
    ['Order A-1 shipped, Ada → ada'],
    'bob is in the group but not picked',
  );
  assert.deepEqual(
    notifications.map((n) => [
      n.recipient,
      n.messages.length,
      n.reminders[0]?.schedule,
      n.reminders[0]?.status,
    ]),
    [['ada', 1, 'P1D', 'ACTIVE']],
  );
  await f.store.events.updateOne({ _id: 'o-1' }, { $set: { status: 'RECEIVED' } }); // a crash before PROCESSED
  await events.process(event, { type: 'test' });
  assert.equal(f.smtp.messages.length - before, 1, 'redelivered: nothing sent twice');
  assert.equal(await f.store.reminders.countDocuments({ key: 'order-1' }), 1, 'nor scheduled twice');
  f.clock = new Date('2026-03-04T10:00:00Z');
  assert.equal(await tick(), 1);
  assert.deepEqual(
    f.mailsSince(before + 1),
    ['Order A-1 arrives tomorrow, Ada → ada'],
    'to its recipient only',
  );
});

test('a handler that throws leaves the event ERROR (500); a handler name nobody loaded: 400', async () => {
  const customHandlers = await loadCustomHandlers(
    folder({ 'throws.mjs': 'export default async () => { throw new Error("out of stock"); }' }),
  );
  const { events } = f.instance({ customHandlers });
  const failure = await events
    .process({ id: 'b-1', name: 'ACME/Broken/v1' }, { type: 'test' })
    .catch((e: unknown) => e);
  assert.ok(failure instanceof HttpError);
  assert.equal(failure.status, 500);
  assert.equal(failure.message, 'handler "throws.mjs" failed: out of stock');
  assert.equal((await f.store.events.findOne({ _id: 'b-1' }))?.status, 'ERROR');
  const missing = await events
    .process({ id: 'm-1', name: 'ACME/Missing/v1' }, { type: 'test' })
    .catch((e: unknown) => e);
  assert.ok(missing instanceof HttpError);
  assert.equal(missing.status, 400);
  assert.equal(missing.message, 'handler "nowhere.js" is not loaded');
});

test('sendMessages: a message’s custom attachments go with the template’s on email, are listed on the stored message, and are ignored on other channels', async () => {
  const customHandlers = await loadCustomHandlers(folder({ 'invoice.js': INVOICE_HANDLER }));
  const { events } = f.instance({ customHandlers });
  const [mails, texts, downloads] = [f.smtp.messages.length, f.sms.calls.length, f.files.calls.length];
  const { notifications } = await events.process(
    { id: 'i-1', name: 'ACME/Invoiced/v1', key: 'order-2', payload: { userId: 'cy', order: 'A-2' } },
    { type: 'test' },
  );
  const [mail, ...more] = f.smtp.messages.slice(mails);
  assert.equal(more.length, 0);
  assert.match(mail?.data ?? '', /Subject: Invoice A-2/);
  assert.match(mail?.data ?? '', /filename=.?terms\.pdf/, 'the template’s attachment');
  assert.match(mail?.data ?? '', /filename=.?invoice-A-2\.pdf/, 'the message’s own, merged with it');
  assert.deepEqual(
    f.files.calls
      .slice(downloads)
      .map((c) => c.path)
      .sort(),
    ['/download/invoice.pdf', '/download/terms.pdf'],
  );
  assert.deepEqual(
    f.sms.calls.slice(texts).map((c) => (c.body as { body: string }).body),
    ['Invoice A-2 sent by email'],
    'the SMS is sent, without attachments',
  );
  const messages = (notifications[0]?.messages ?? []) as Record<string, unknown>[];
  assert.deepEqual(messages.map((m) => [m.channel, m.status, m.attachments]).sort(), [
    ['email', 'SUCCESS', [{ file: 'invoice.pdf', name: 'invoice-A-2.pdf' }]],
    ['sms', 'SUCCESS', undefined],
  ]);

  // A custom attachment the file service does not have: that email fails, named; the SMS is sent.
  const missing = await events.process(
    {
      id: 'i-2',
      name: 'ACME/Invoiced/v1',
      key: 'order-3',
      payload: { userId: 'cy', order: 'A-3', attachments: [{ file: 'gone.pdf' }] },
    },
    { type: 'test' },
  );
  const email = ((missing.notifications[0]?.messages ?? []) as Record<string, unknown>[]).find(
    (m) => m.channel === 'email',
  );
  assert.equal(email?.status, 'FAILURE');
  assert.match(
    (email?.error as { message?: string } | undefined)?.message ?? '',
    /file service answered 404 for "gone\.pdf"/,
  );

  // Not a list of file references: the handler's bug, the event ERROR (500).
  const bad = await events
    .process(
      {
        id: 'i-3',
        name: 'ACME/Invoiced/v1',
        key: 'order-4',
        payload: { userId: 'cy', order: 'A-4', attachments: ['invoice.pdf'] },
      },
      { type: 'test' },
    )
    .catch((e: unknown) => e);
  assert.ok(bad instanceof HttpError);
  assert.equal(bad.status, 500);
  assert.match(bad.message, /messages\[0\]\.attachments must be a list of \{file, name\?\}/);
});

test('abortReminders: `query.eventName` aborts only the reminders set by events of those names; without it, all of the key’s', async () => {
  f.clock = new Date('2026-03-01T08:00:00Z');
  const customHandlers = await loadCustomHandlers(
    folder({ 'acme-shipping-handler.js': SHIPPING_HANDLER, 'cancel.js': CANCEL_HANDLER }),
  );
  const { events } = f.instance({ customHandlers });
  const key = 'order-9';
  // Two events on the order set a reminder each for ada.
  await events.process(
    {
      id: 'shipped-9',
      name: 'ACME/OrderShipped/v1',
      key,
      payload: { userId: 'ada', order: 'A-9', deliveryDate: '2026-03-10T10:00:00Z' },
    },
    { type: 'test' },
  );
  await events.process(
    {
      id: 'delayed-9',
      name: 'ACME/OrderDelayed/v1',
      key,
      payload: { userId: 'ada', order: 'A-9', deliveryDate: '2026-03-12T10:00:00Z' },
    },
    { type: 'test' },
  );
  const statuses = async () =>
    Object.fromEntries((await f.store.reminders.find({ key }).toArray()).map((r) => [r.eventId, r.status]));
  const onNotification = async (eventId: string) =>
    (
      ((await f.store.notifications.findOne({ _id: `${eventId}:ada` }))?.reminders ?? []) as {
        status: string;
      }[]
    ).map((r) => r.status);
  assert.deepEqual(await statuses(), { 'shipped-9': 'ACTIVE', 'delayed-9': 'ACTIVE' });
  // "Return value: An array of updated notifications" (here: event id, recipient, reminder statuses).
  const aborted = () =>
    (
      (globalThis as { abortedByCancelHandler?: unknown }).abortedByCancelHandler as {
        event: { id: string; name: string };
        recipient: string;
        reminders: { status: string }[];
      }[]
    ).map((n) => [n.event.id, n.event.name, n.recipient, n.reminders.map((r) => r.status)]);

  const cancel = (id: string, query: unknown) =>
    events.process(
      { id, name: 'ACME/OrderCancelled/v1', key, payload: { userId: 'ada', query } },
      { type: 'test' },
    );
  await cancel('cancel-9a', { eventName: ['ACME/OrderDelayed/v1', 'ACME/Other/v1'] });
  assert.deepEqual(aborted(), [['delayed-9', 'ACME/OrderDelayed/v1', 'ada', ['ABORTED']]]);
  assert.deepEqual(await statuses(), { 'shipped-9': 'ACTIVE', 'delayed-9': 'ABORTED' });
  assert.deepEqual(await onNotification('delayed-9'), ['ABORTED']);
  assert.deepEqual(await onNotification('shipped-9'), ['ACTIVE']);

  await cancel('cancel-9b', { eventName: ['ACME/Other/v1'] });
  assert.deepEqual(aborted(), [], 'no reminder set by an event of that name');
  assert.deepEqual(await statuses(), { 'shipped-9': 'ACTIVE', 'delayed-9': 'ABORTED' });

  await cancel('cancel-9c', undefined);
  assert.deepEqual(
    aborted(),
    [['shipped-9', 'ACME/OrderShipped/v1', 'ada', ['ABORTED']]],
    'no query: every active reminder of the key',
  );
  assert.deepEqual(await statuses(), { 'shipped-9': 'ABORTED', 'delayed-9': 'ABORTED' });
  assert.deepEqual(await onNotification('shipped-9'), ['ABORTED']);
});

test('getRecipients: "all the user having any of the given ids and any of the given groups" (every filter passed, any value of each)', async () => {
  const report = await runReporting(
    `module.exports = async function handler(service, event, utils) {
      const ids = (users) => users.map((u) => u.id).sort();
      globalThis.handlerReport = {
        idsAndGroup: ids(await utils.getRecipients(service, { ids: ['ada', 'cy'], groups: ['customers'] })),
        groups: ids(await utils.getRecipients(service, { groups: ['customers', 'buyers'] })),
        idsAndOtherGroup: ids(await utils.getRecipients(service, { ids: ['ada'], groups: ['buyers'] })),
      };
    };`,
    { name: 'ACME/Recipients/v1' },
  );
  assert.deepEqual(report, {
    idsAndGroup: ['ada'],
    groups: ['ada', 'bob', 'cy'],
    idsAndOtherGroup: [],
  });
});

test('getNotificationSettings: sorted by precedence (user > cluster > role > group); emitters filter only when given', async () => {
  const eventName = 'ACME/Settings/v1';
  const setting = (_id: string, fields: Record<string, unknown>) => ({
    _id,
    eventName,
    templateName: 'shipped',
    channels: ['email'],
    ...fields,
  });
  // Stored lowest precedence first; one for another user; one for the emitter `shop` only.
  await f.store.notificationSettings.insertMany([
    setting('set-group', { group: 'customers' }),
    setting('set-shop', { group: 'customers', emitters: ['shop'], templateName: 'arriving' }),
    setting('set-role', { role: 'admin' }),
    setting('set-user', { user: 'ada' }),
    setting('set-bob', { user: 'bob' }),
  ]);
  const report = await runReporting(
    `module.exports = async function handler(service, event, utils) {
      const [ada] = await utils.getRecipients(service, { ids: ['ada'] });
      const ids = (settings) => settings.map((s) => s._id);
      globalThis.handlerReport = {
        ada: ids(await utils.getNotificationSettings(service, event, ada)),
        adaFromShop: ids(await utils.getNotificationSettings(service, event, ada, ['shop'])),
        adaFromElsewhere: ids(await utils.getNotificationSettings(service, event, ada, ['kiosk'])),
        anyone: ids(await utils.getNotificationSettings(service, event)),
      };
    };`,
    { name: eventName },
  );
  assert.deepEqual(report, {
    ada: ['set-user', 'set-group', 'set-shop'],
    adaFromShop: ['set-user', 'set-group', 'set-shop'],
    adaFromElsewhere: ['set-user', 'set-group'],
    anyone: ['set-user', 'set-bob', 'set-role', 'set-group', 'set-shop'],
  });
});

test('sendMessages and setReminders with an empty list: "no record is stored in the notifications CRUD"', async () => {
  const report = (await runReporting(
    `module.exports = async function handler(service, event, utils) {
      const [ada] = await utils.getRecipients(service, { ids: ['ada'] });
      const sent = await utils.sendMessages(service, event, ada, []);
      const set = await utils.setReminders(service, event, ada, []);
      globalThis.handlerReport = { sent, set };
    };`,
    { name: 'ACME/Nothing/v1' },
  )) as Record<string, { recipient: string; messages: unknown[]; reminders: unknown[] }>;
  assert.deepEqual(
    Object.values(report).map((n) => [n.recipient, n.messages, n.reminders]),
    [
      ['ada', [], []],
      ['ada', [], []],
    ],
  );
  assert.equal(
    await f.store.notifications.countDocuments({ 'event.name': 'ACME/Nothing/v1' }),
    0,
    'nothing stored',
  );
});

test('mergeNotifications: exactly one is returned as is; none gives zero messages, reminders and failures; several have all their failures', async () => {
  const report = (await runReporting(
    `module.exports = async function handler(service, event, utils) {
      const [ada] = await utils.getRecipients(service, { ids: ['ada'] });
      const one = { event, recipient: 'ada', messages: [{ channel: 'email' }], reminders: [], failures: [{ error: 'a' }] };
      const two = { event, recipient: 'ada', messages: [], reminders: [{ schedule: 'P1D' }], failures: [{ error: 'b' }] };
      const merged = utils.mergeNotifications(service, event, ada, [one, two]);
      globalThis.handlerReport = {
        same: utils.mergeNotifications(service, event, ada, [one]) === one,
        none: utils.mergeNotifications(service, event, ada, []),
        merged: [merged.messages, merged.reminders, merged.failures],
      };
    };`,
    { name: 'ACME/Merge/v1' },
  )) as { same: boolean; none: Record<string, unknown>; merged: unknown };
  assert.equal(report.same, true, 'the exact same notification');
  assert.deepEqual(
    [report.none.recipient, report.none.messages, report.none.reminders, report.none.failures],
    ['ada', [], [], []],
  );
  assert.deepEqual(report.merged, [
    [{ channel: 'email' }],
    [{ schedule: 'P1D' }],
    [{ error: 'a' }, { error: 'b' }],
  ]);
});

test('sendNotification(service, event, user, notification): one notification setting’s messages sent, "the details about the notification sent" answered', async () => {
  const before = f.smtp.messages.length;
  const report = (await runReporting(
    `module.exports = async function handler(service, event, utils) {
      const [ada] = await utils.getRecipients(service, { ids: ['ada'] });
      const setting = { eventName: event.name, group: 'customers', templateName: 'shipped', channels: ['email'] };
      globalThis.handlerReport = await utils.sendNotification(service, event, ada, setting);
    };`,
    { name: 'ACME/OneSetting/v1', payload: { order: 'A-7' } },
  )) as { recipient: string; messages: { channel: string; templateName: string; status: string }[] };
  assert.deepEqual(f.mailsSince(before), ['Order A-7 shipped, Ada → ada']);
  assert.deepEqual(
    [report.recipient, report.messages.map((m) => [m.channel, m.templateName, m.status])],
    ['ada', [['email', 'shipped', 'SUCCESS']]],
  );
});

test('setReminders: the reminder event’s `metadata.reminder` is "the given notification reminder object", `triggers` included', async () => {
  f.clock = new Date('2026-03-01T08:00:00Z');
  const reminder = {
    expirationDate: '2026-03-20T09:30:00.000Z',
    schedule: 'P1D',
    recipients: ['ada'],
    triggers: ['notification-setting-12345'],
  };
  await runReporting(
    `module.exports = async function handler(service, event, utils) {
      const [ada] = await utils.getRecipients(service, { ids: ['ada'] });
      await utils.setReminders(service, event, ada, [${JSON.stringify(reminder)}]);
    };`,
    { name: 'ACME/Triggered/v1', payload: {} },
  );
  const [set, ...more] = await f.store.reminders.find({ 'event.name': 'ACME/Triggered/v1' }).toArray();
  assert.equal(more.length, 0);
  assert.deepEqual(set?.event.metadata?.reminder, reminder);
});

test.run();
