import * as assert from 'node:assert/strict';
import pino from 'pino';
import { durationMs } from '../../../services/notification/duration.ts';
import { nextPlanDay, planReminder } from '../../../services/notification/plan-days.ts';
import { BUILT_IN_SCHEDULER, Reminders } from '../../../services/notification/reminders.ts';
import { test } from '../../support/suite.ts';
import { type ProcessorFixture, startProcessorFixture } from './processor-fixture.ts';

let f: ProcessorFixture;

test.before(async () => {
  f = await startProcessorFixture();
  await f.db.collection('users').insertMany([
    { _id: 'ada' as never, emailAddress: 'ada@example.com', groups: ['patients'] },
    { _id: 'bob' as never, emailAddress: 'bob@example.com', groups: ['staff'] },
  ]);
  await f.store.templates.insertOne({
    _id: 'visit',
    name: 'visit',
    emailTitle: "Visit on {{dateFormat data.startDate format='D MMM HH:mm'}}",
    emailMessage: 'at {{data.startDate}}',
  });
  await f.store.notificationSettings.insertMany(
    ['AM/AppointmentCreated/v1', 'AM/AppointmentReminder/v1'].map((eventName) => ({
      _id: eventName,
      eventName,
      templateName: 'visit',
      group: 'patients',
      channels: ['email'],
      reminders: ['P1D', 'PT1H'],
    })),
  );
});

test.after(async () => {
  await f?.stop();
});

test('ISO 8601 durations', () => {
  assert.equal(durationMs('P1D'), 86_400_000);
  assert.equal(durationMs('PT1H30M'), 5_400_000);
  assert.equal(durationMs('P1W'), 7 * 86_400_000);
  assert.equal(durationMs('PT0.5S'), 500);
  for (const bad of ['P', 'PT', 'P1M', 'P1Y', '1D', 'PT1D']) assert.equal(durationMs(bad), undefined, bad);
});

test('plan days: every day or the listed weekdays, from the start to the end date included', () => {
  const plan = { startDate: '2026-03-02T00:00:00Z', endDate: '2026-03-11T00:00:00Z' };
  const cases: [unknown, string, string | undefined][] = [
    [['day'], '2026-03-01T08:00:00Z', '2026-03-02'], // before the start: the first day
    [['day'], '2026-03-05T00:00:00Z', '2026-03-05'], // a midnight is its own day
    [['day'], '2026-03-05T00:00:01Z', '2026-03-06'],
    [['monday'], '2026-03-03T00:00:00Z', '2026-03-09'], // 2026-03-02 is a Monday
    [['wednesday', 'friday'], '2026-03-05T12:00:00Z', '2026-03-06'],
    [['monday'], '2026-03-09T00:00:01Z', undefined], // the next Monday is past the end
    [['day'], '2026-03-11T00:00:01Z', undefined],
    [['someday'], '2026-03-01T00:00:00Z', undefined],
    [[], '2026-03-01T00:00:00Z', undefined],
    [undefined, '2026-03-01T00:00:00Z', undefined],
  ];
  for (const [each, from, expected] of cases) {
    assert.equal(
      nextPlanDay({ ...plan, each }, new Date(from))
        ?.toISOString()
        .slice(0, 10),
      expected,
      `${JSON.stringify(each)} from ${from}`,
    );
  }
  assert.equal(nextPlanDay({ each: ['day'] }, new Date('2026-03-01T00:00:00Z')), undefined, 'no start date');
  assert.equal(
    planReminder({ ...plan, each: ['day'] }, 'PT1H', new Date('2026-03-01T23:00:00Z'))?.toISOString(),
    '2026-03-02T23:00:00.000Z',
    'the reminder at 23:00 is not ahead of 23:00: the next day’s',
  );
  assert.equal(planReminder({ ...plan, each: ['day'] }, 'P1M', new Date('2026-03-01T00:00:00Z')), undefined);
});

const created = (id: string, key: string, startDate: string) => ({
  id,
  name: 'AM/AppointmentCreated/v1',
  key,
  payload: { startDate, participantIds: ['ada', 'bob'] },
});

test('reminders: scheduled before the event date, only for the interested users, fired once when due, surviving a restart', async () => {
  f.clock = new Date('2026-03-01T08:00:00Z');
  const first = f.instance();
  const event = created('a-1', 'apt-1', '2026-03-03T10:00:00Z');
  const { notifications } = await first.events.process(event, { type: 'test' });
  const ada = notifications.find((n) => n.recipient === 'ada');
  assert.deepEqual(
    ((ada?.reminders ?? []) as { schedule: string; expirationDate: Date; status: string }[]).map((r) => [
      r.schedule,
      new Date(r.expirationDate).toISOString(),
      r.status,
    ]),
    [
      ['P1D', '2026-03-02T10:00:00.000Z', 'ACTIVE'],
      ['PT1H', '2026-03-03T09:00:00.000Z', 'ACTIVE'],
    ],
  );
  assert.equal(
    await f.store.reminders.countDocuments({ recipient: 'bob' }),
    0,
    'bob has no setting: not interested',
  );
  await first.events.process({ ...event }, { type: 'test' }); // redelivered
  assert.equal(await f.store.reminders.countDocuments(), 2, 'a redelivered event schedules nothing twice');
  assert.equal(await first.tick(), 0, 'nothing due yet');
  f.clock = new Date('2026-03-02T10:00:00Z');
  const sent = f.smtp.messages.length;
  const restarted = f.instance();
  assert.equal(await restarted.tick(), 1, 'the P1D reminder, after a restart');
  assert.equal(await restarted.tick(), 0, 'fired once');
  assert.deepEqual(f.mailsSince(sent), ['Visit on 3 Mar 10:00 → ada']);
  const fired = await f.store.reminders.findOne({ schedule: 'P1D' });
  assert.equal(fired?.status, 'ACTIVE', 'the reference’s status: active until aborted');
  assert.deepEqual(fired?.firedAt, f.clock, 'fired, noted beside its status');
  assert.equal(
    (await f.store.events.findOne({ _id: fired?._id ?? '' }))?.status,
    'PROCESSED',
    'its event is stored',
  );
});

test('a crash while firing: the reminder left claimed is claimed again after the lease and its email is not sent twice', async () => {
  f.clock = new Date('2026-03-01T08:00:00Z');
  const { events } = f.instance();
  await events.process(created('a-2', 'apt-2', '2026-03-03T12:00:00Z'), { type: 'test' });
  f.clock = new Date('2026-03-02T12:00:00Z');
  const due = await f.store.reminders.findOne({ key: 'apt-2', schedule: 'P1D' });
  assert.ok(due);
  // The instance that claimed it crashed after sending, before noting it fired.
  await events.process(due.event, { type: 'reminder' });
  await f.store.reminders.updateOne(
    { _id: due._id },
    { $set: { claimedAt: f.clock }, $unset: { firedAt: '' } },
  );
  const sent = f.smtp.messages.length;
  const restarted = f.instance();
  assert.equal(await restarted.tick(), 0, 'within the lease: another replica may still be firing it');
  f.clock = new Date('2026-03-02T12:01:00Z');
  assert.equal(await restarted.tick(), 1, 'after the lease');
  assert.equal(f.smtp.messages.length, sent, 'its event was processed already: nothing sent twice');
  const after = await f.store.reminders.findOne({ _id: due._id });
  assert.equal(after?.status, 'ACTIVE');
  assert.deepEqual(after?.firedAt, f.clock);
});

test('reminders an earlier version left SENT or FIRING get ACTIVE back at start, fired noted, and a deletion aborts them', async () => {
  f.clock = new Date('2026-03-01T08:00:00Z');
  await f.instance().events.process(created('a-5', 'apt-5', '2026-03-03T10:00:00Z'), { type: 'test' });
  const legacy = { SENT: 'P1D', FIRING: 'PT1H' } as const;
  for (const [status, schedule] of Object.entries(legacy))
    await f.store.reminders.updateOne(
      { key: 'apt-5', schedule },
      {
        $set: {
          status: status as never,
          ...(status === 'SENT' ? { firedAt: f.clock } : { claimedAt: f.clock }),
        },
      },
    );
  const reminders = new Reminders(
    f.store.reminders,
    f.store.notifications,
    BUILT_IN_SCHEDULER,
    pino({ level: 'silent' }),
  );
  assert.equal(await reminders.adoptLegacyStatuses(), 2);
  assert.equal(await reminders.adoptLegacyStatuses(), 0, 'once');
  const adopted = await f.store.reminders.find({ key: 'apt-5' }).sort({ schedule: 1 }).toArray();
  assert.deepEqual(
    adopted.map((r) => [r.schedule, r.status, r.firedAt !== undefined]),
    [
      ['P1D', 'ACTIVE', true],
      ['PT1H', 'ACTIVE', false],
    ],
  );
  await f
    .instance()
    .events.process(
      { id: 'a-5d', name: 'AM/AppointmentDeleted/v1', key: 'apt-5', payload: { participantIds: ['ada'] } },
      { type: 'test' },
    );
  assert.deepEqual(
    (await f.store.reminders.find({ key: 'apt-5' }).toArray()).map((r) => r.status),
    ['ABORTED', 'ABORTED'],
  );
});

test('a reminder already past at scheduling is not set', async () => {
  f.clock = new Date('2026-03-10T00:00:00Z');
  await f.instance().events.process(created('a-4', 'apt-4', '2026-03-10T12:00:00Z'), { type: 'test' });
  const set = await f.store.reminders.find({ key: 'apt-4' }).toArray();
  assert.deepEqual(
    set.map((r) => r.schedule),
    ['PT1H'],
    'P1D before is already past',
  );
});

test.run();
