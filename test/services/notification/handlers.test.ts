import * as assert from 'node:assert/strict';
import { DEFAULT_EVENTS } from '../../../services/notification/default-handlers.ts';
import type { IncomingEvent } from '../../../services/notification/handler.ts';
import { test } from '../../support/suite.ts';
import { type ProcessorFixture, startProcessorFixture } from './processor-fixture.ts';

let f: ProcessorFixture;

const DOCTORS = ['dr.rossi', 'dr.verdi', 'dr.bianchi'];
const PATIENTS = ['jill', 'mark', 'lucia'];

test.before(async () => {
  f = await startProcessorFixture();
  await f.db.collection('users').insertMany([
    ...DOCTORS.map((id) => ({
      _id: id as never,
      emailAddress: `${id}@c.test`,
      phoneNumber: id,
      groups: ['doctors'],
    })),
    ...PATIENTS.map((id) => ({ _id: id as never, emailAddress: `${id}@c.test`, groups: ['patients'] })),
    { _id: 'nurse' as never, emailAddress: 'nurse@c.test', groups: ['staff'] },
  ]);
  // One template per event, titled with its name: the mails say which event each recipient got.
  await f.store.templates.insertMany(
    DEFAULT_EVENTS.map((eventName) => ({
      _id: eventName,
      name: eventName,
      emailTitle: eventName,
      emailMessage: 'for {{user._id}}',
      smsMessage: eventName,
    })),
  );
  // Every default event: patients get it by email with reminders (a day before appointments, an
  // hour before plan days), doctors by email and SMS without reminders.
  await f.store.notificationSettings.insertMany(
    DEFAULT_EVENTS.flatMap((eventName) => [
      {
        _id: `${eventName}:patients`,
        eventName,
        templateName: eventName,
        group: 'patients',
        channels: ['email'],
        reminders: [eventName.startsWith('AM/') ? 'P1D' : 'PT1H'],
      },
      {
        _id: `${eventName}:doctors`,
        eventName,
        templateName: eventName,
        group: 'doctors',
        channels: ['email', 'sms'],
      },
    ]),
  );
});

test.after(async () => {
  await f?.stop();
});

/**
 * The reminders of a key still to fire (`ACTIVE`, not fired yet): `recipient event expiration`,
 * sorted. A fired reminder stays `ACTIVE`, as the reference keeps it, until an abort.
 */
async function pendingReminders(key: string): Promise<string[]> {
  const pending = await f.store.reminders
    .find({ key, status: 'ACTIVE', firedAt: { $exists: false } })
    .toArray();
  return pending
    .map((r) => `${r.recipient} ${r.event.name} ${r.expirationDate.toISOString().slice(0, 16)}`)
    .sort();
}

interface Row {
  readonly what: string;
  /** An event to process, or something else that happens (a reminder tick). */
  readonly act: IncomingEvent | typeof TICK;
  readonly clock?: string;
  /** Every email the row sends: `event name → recipient`. */
  readonly mails: string[];
  /** The key's reminders still to fire after the row. */
  readonly pending: string[];
}

async function play(key: string, rows: readonly Row[]) {
  for (const row of rows) {
    if (row.clock) f.clock = new Date(row.clock);
    const { events, tick } = f.instance();
    const before = f.smtp.messages.length;
    const texts = f.sms.calls.length;
    if (row.act === TICK) await tick();
    else await events.process({ ...row.act, key }, { type: 'test' });
    assert.deepEqual(f.mailsSince(before), [...row.mails].sort(), `${row.what}: emails`);
    // Doctors (phone number = id) get the same messages by SMS, through the SMS service.
    const doctorMails = row.mails.filter((mail) => DOCTORS.some((id) => mail.endsWith(`→ ${id}`)));
    const sent = f.sms.calls.slice(texts).map((call) => {
      const { body, receiver } = call.body as { body: string; receiver: string };
      return `${body} → ${receiver}`;
    });
    assert.deepEqual(sent.sort(), doctorMails.sort(), `${row.what}: SMS`);
    assert.deepEqual(await pendingReminders(key), [...row.pending].sort(), `${row.what}: pending reminders`);
  }
}

/** A row whose act is the built-in scheduler's tick (of a fresh instance): it fires what is due. */
const TICK = Symbol('tick');

const appointment = (startDate: string, participantIds: string[]) => ({
  startDate,
  endDate: startDate.replace('09:30', '10:15'),
  resourceId: 'dr.rossi',
  participantIds,
});
const userFields = { userFields: ['resourceId', 'participantIds'] };

test('appointments: participants notified, added and removed ones get created and deleted, reminders a day before to the interested users only, moved on reschedule, aborted on deletion', async () => {
  const first = appointment('2026-03-05T09:30:00Z', ['jill', 'mark']);
  const moved = appointment('2026-03-05T09:30:00Z', ['lucia', 'mark']);
  const later = appointment('2026-03-06T09:30:00Z', ['lucia', 'mark']);
  await play('apt-1', [
    {
      what: 'created',
      act: { id: 'apt-c', name: 'AM/AppointmentCreated/v1', metadata: userFields, payload: first },
      mails: [
        'AM/AppointmentCreated/v1 → dr.rossi',
        'AM/AppointmentCreated/v1 → jill',
        'AM/AppointmentCreated/v1 → mark',
      ],
      pending: [
        'jill AM/AppointmentReminder/v1 2026-03-04T09:30',
        'mark AM/AppointmentReminder/v1 2026-03-04T09:30',
      ],
    },
    {
      what: 'updated: jill replaced by lucia, same time',
      act: {
        id: 'apt-u1',
        name: 'AM/AppointmentUpdated/v1',
        metadata: userFields,
        payload: { originalAppointment: first, currentAppointment: moved },
      },
      mails: [
        'AM/AppointmentCreated/v1 → lucia',
        'AM/AppointmentDeleted/v1 → jill',
        'AM/AppointmentUpdated/v1 → dr.rossi',
        'AM/AppointmentUpdated/v1 → mark',
      ],
      pending: [
        'lucia AM/AppointmentReminder/v1 2026-03-04T09:30',
        'mark AM/AppointmentReminder/v1 2026-03-04T09:30',
      ],
    },
    {
      what: 'updated: rescheduled a day later',
      act: {
        id: 'apt-u2',
        name: 'AM/AppointmentUpdated/v1',
        metadata: userFields,
        payload: { originalAppointment: moved, currentAppointment: later },
      },
      mails: [
        'AM/AppointmentUpdated/v1 → dr.rossi',
        'AM/AppointmentUpdated/v1 → lucia',
        'AM/AppointmentUpdated/v1 → mark',
      ],
      pending: [
        'lucia AM/AppointmentReminder/v1 2026-03-05T09:30',
        'mark AM/AppointmentReminder/v1 2026-03-05T09:30',
      ],
    },
    {
      what: 'the day before: the reminders fire, to their recipients, with the settings of their schedule',
      clock: '2026-03-05T09:30:00Z',
      act: TICK,
      mails: ['AM/AppointmentReminder/v1 → lucia', 'AM/AppointmentReminder/v1 → mark'],
      pending: [],
    },
    {
      what: 'deleted',
      act: { id: 'apt-d', name: 'AM/AppointmentDeleted/v1', metadata: userFields, payload: later },
      mails: [
        'AM/AppointmentDeleted/v1 → dr.rossi',
        'AM/AppointmentDeleted/v1 → lucia',
        'AM/AppointmentDeleted/v1 → mark',
      ],
      pending: [],
    },
  ]);
  // The deletion aborted every reminder of the appointment, the fired ones too, as the reference's
  // abortReminders does with every ACTIVE reminder; whether one fired is kept beside its status.
  const statuses = await f.store.reminders.find({ key: 'apt-1' }).toArray();
  assert.deepEqual(statuses.map((r) => `${r.recipient} ${r.status}${r.firedAt ? ' fired' : ''}`).sort(), [
    'jill ABORTED',
    'lucia ABORTED',
    'lucia ABORTED fired',
    'mark ABORTED',
    'mark ABORTED fired',
  ]);
});

test('an appointment deleted before its reminders: they are aborted and never fire', async () => {
  f.clock = new Date('2026-03-01T08:00:00Z');
  const payload = appointment('2026-03-03T09:30:00Z', ['jill']);
  await play('apt-2', [
    {
      what: 'created',
      act: { id: 'apt2-c', name: 'AM/AppointmentCreated/v1', payload },
      mails: ['AM/AppointmentCreated/v1 → dr.rossi', 'AM/AppointmentCreated/v1 → jill'],
      pending: ['jill AM/AppointmentReminder/v1 2026-03-02T09:30'],
    },
    {
      what: 'deleted',
      act: { id: 'apt2-d', name: 'AM/AppointmentDeleted/v1', payload },
      mails: ['AM/AppointmentDeleted/v1 → dr.rossi', 'AM/AppointmentDeleted/v1 → jill'],
      pending: [],
    },
    { what: 'past the reminder time', clock: '2026-03-04T00:00:00Z', act: TICK, mails: [], pending: [] },
  ]);
  const created = await f.store.notifications.findOne({ _id: 'apt2-c:jill' });
  assert.deepEqual(
    created?.reminders.map((r: { schedule: string; status: string }) => [r.schedule, r.status]),
    [['P1D', 'ABORTED']],
    'the created event’s notification says so, as the reference keeps reminders there',
  );
});

const therapy = (over: Record<string, unknown> = {}) => ({
  planName: 'Drug therapy',
  startDate: '2026-03-02T00:00:00Z',
  endDate: '2026-03-04T00:00:00Z',
  each: ['day'],
  doctorId: 'dr.rossi',
  patientId: 'jill',
  ...over,
});

test('therapy: included and excluded users, a recurring reminder an hour before each plan day, moved and aborted by updates, aborted by deletion', async () => {
  f.clock = new Date('2026-03-01T08:00:00Z');
  const mondays = therapy({ doctorId: 'dr.bianchi', endDate: '2026-03-20T00:00:00Z', each: ['monday'] });
  await play('th-1', [
    {
      what: 'created: dr.verdi included, dr.rossi excluded',
      act: {
        id: 'th-c',
        name: 'TMM/TherapyCreated/v1',
        metadata: { includeUsers: ['dr.verdi'], excludeUsers: ['dr.rossi'] },
        payload: therapy(),
      },
      mails: ['TMM/TherapyCreated/v1 → dr.verdi', 'TMM/TherapyCreated/v1 → jill'],
      pending: ['jill TMM/TherapyReminder/v1 2026-03-01T23:00'],
    },
    {
      what: 'the reminder for the first day fires and sets the next day’s',
      clock: '2026-03-01T23:00:00Z',
      act: TICK,
      mails: ['TMM/TherapyReminder/v1 → jill'],
      pending: ['jill TMM/TherapyReminder/v1 2026-03-02T23:00'],
    },
    {
      what: 'updated: dr.bianchi replaces dr.rossi, mondays only',
      act: {
        id: 'th-u',
        name: 'TMM/TherapyUpdated/v1',
        payload: { originalTherapy: therapy(), currentTherapy: mondays },
      },
      mails: [
        'TMM/TherapyCreated/v1 → dr.bianchi',
        'TMM/TherapyDeleted/v1 → dr.rossi',
        'TMM/TherapyUpdated/v1 → jill',
      ],
      pending: ['jill TMM/TherapyReminder/v1 2026-03-08T23:00'],
    },
    {
      what: 'deleted',
      act: { id: 'th-d', name: 'TMM/TherapyDeleted/v1', payload: mondays },
      mails: ['TMM/TherapyDeleted/v1 → dr.bianchi', 'TMM/TherapyDeleted/v1 → jill'],
      pending: [],
    },
  ]);
});

test('monitoring: the last plan day’s reminder sets no next one', async () => {
  f.clock = new Date('2026-03-01T08:00:00Z');
  const plan = therapy({
    startDate: '2026-03-03T00:00:00Z',
    endDate: '2026-03-03T00:00:00Z',
    patientId: 'mark',
  });
  await play('mon-1', [
    {
      what: 'created',
      act: { id: 'mon-c', name: 'TMM/MonitoringCreated/v1', payload: plan },
      mails: ['TMM/MonitoringCreated/v1 → dr.rossi', 'TMM/MonitoringCreated/v1 → mark'],
      pending: ['mark TMM/MonitoringReminder/v1 2026-03-02T23:00'],
    },
    {
      what: 'its only day',
      clock: '2026-03-02T23:00:00Z',
      act: TICK,
      mails: ['TMM/MonitoringReminder/v1 → mark'],
      pending: [],
    },
  ]);
});

test('threshold exceeded goes to the plan’s doctor; resource forbidden to every user its settings target', async () => {
  await play('other', [
    {
      what: 'threshold exceeded',
      act: {
        id: 'thr',
        name: 'TMM/ThresholdExceeded/v1',
        payload: { plan: therapy(), detection: { doctorId: 'dr.rossi', patientId: 'jill' } },
      },
      mails: ['TMM/ThresholdExceeded/v1 → dr.rossi'],
      pending: [],
    },
    {
      what: 'resource forbidden',
      act: { id: 'ic', name: 'IC/ResourceForbiddenEvent/v1', payload: { collectionName: 'reports' } },
      mails: [...DOCTORS, ...PATIENTS].map((id) => `IC/ResourceForbiddenEvent/v1 → ${id}`),
      pending: [],
    },
  ]);
});

test('a crash between storing one recipient’s notification and sending the next: the redelivery sends only what was not stored', async () => {
  f.clock = new Date('2026-03-01T08:00:00Z');
  const event = {
    id: 'crash-1',
    name: 'AM/AppointmentCreated/v1',
    key: 'apt-crash',
    payload: appointment('2026-03-09T09:30:00Z', ['jill', 'mark']),
  };
  await f.instance().events.process(event, { type: 'test' });
  // The state a crash leaves: the event RECEIVED, mark's notification (and email) never done.
  await f.store.events.updateOne({ _id: 'crash-1' }, { $set: { status: 'RECEIVED' } });
  await f.store.notifications.deleteOne({ _id: 'crash-1:mark' });
  const before = f.smtp.messages.length;
  const { notifications } = await f.instance().events.process(event, { type: 'redelivery' });
  assert.deepEqual(f.mailsSince(before), ['AM/AppointmentCreated/v1 → mark']);
  assert.deepEqual(notifications.map((n) => n.recipient).sort(), ['dr.rossi', 'jill', 'mark']);
  assert.equal(
    await f.store.reminders.countDocuments({ key: 'apt-crash' }),
    2,
    'jill’s and mark’s reminders, once each',
  );
});

test('a reminder event filters the settings by its schedule; a reminder event without recipients sends nothing', async () => {
  const { events } = f.instance();
  const before = f.smtp.messages.length;
  const reminder = (id: string, schedule: string, recipients: string[]) =>
    events.process(
      {
        id,
        name: 'AM/AppointmentReminder/v1',
        metadata: { reminder: { schedule, recipients } },
        payload: appointment('2026-03-10T09:30:00Z', recipients),
      },
      { type: 'test' },
    );
  await reminder('r-1', 'PT2H', ['jill']);
  await reminder('r-2', 'P1D', []);
  assert.deepEqual(f.mailsSince(before), [], 'no setting has PT2H; nobody to remind');
  await reminder('r-3', 'P1D', ['jill']);
  assert.deepEqual(f.mailsSince(before), ['AM/AppointmentReminder/v1 → jill']);
});

test.run();
