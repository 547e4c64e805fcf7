import { durationMs } from './duration.ts';
import {
  type DefaultHandler,
  type IncomingEvent,
  idsIn,
  objectAt,
  participantChanges,
  reminderOf,
  type Step,
  withRecipients,
} from './handler.ts';

const CREATED = 'AM/AppointmentCreated/v1';
const UPDATED = 'AM/AppointmentUpdated/v1';
const DELETED = 'AM/AppointmentDeleted/v1';
const REMINDER = 'AM/AppointmentReminder/v1';

/** Where the participants are when the event's `metadata.userFields` does not say (the reference's examples). */
const DEFAULT_USER_FIELDS = ['resourceId', 'participantIds'];

const userFieldsOf = (event: IncomingEvent): string[] => {
  const fields = idsIn(event.metadata, ['userFields']);
  return fields.length > 0 ? fields : DEFAULT_USER_FIELDS;
};

/** Reminders `schedule` before the appointment starts. */
function remindBefore(appointment: Record<string, unknown>): NonNullable<Step['remind']> {
  const start = typeof appointment.startDate === 'string' ? Date.parse(appointment.startDate) : Number.NaN;
  return {
    name: REMINDER,
    payload: appointment,
    expiration: (schedule) => {
      const before = durationMs(schedule);
      return before === undefined || Number.isNaN(start) ? undefined : new Date(start - before);
    },
  };
}

const created: DefaultHandler = (event) => {
  const payload = event.payload ?? {};
  return withRecipients([
    {
      recipients: idsIn(payload, userFieldsOf(event)),
      as: { name: event.name, payload },
      remind: remindBefore(payload),
    },
  ]);
};

const deleted: DefaultHandler = (event) => {
  const payload = event.payload ?? {};
  return withRecipients([
    {
      recipients: idsIn(payload, userFieldsOf(event)),
      as: { name: event.name, payload },
      abortReminders: true,
    },
  ]);
};

/**
 * Participants added get the created event on the current appointment, those removed the deleted
 * event on the original one (their reminders aborted), the others the update itself; a rescheduled
 * appointment moves the reminders of those who stay.
 */
const updated: DefaultHandler = (event) => {
  const original = objectAt(event.payload, 'originalAppointment');
  const current = objectAt(event.payload, 'currentAppointment');
  const fields = userFieldsOf(event);
  const { added, removed, kept } = participantChanges(idsIn(original, fields), idsIn(current, fields));
  const rescheduled = original.startDate !== current.startDate || original.endDate !== current.endDate;
  return withRecipients([
    { recipients: added, as: { name: CREATED, payload: current }, remind: remindBefore(current) },
    { recipients: removed, as: { name: DELETED, payload: original }, abortReminders: true },
    {
      recipients: kept,
      as: { name: event.name, payload: event.payload ?? {} },
      abortReminders: rescheduled,
      remind: rescheduled ? remindBefore(current) : undefined,
    },
  ]);
};

/** A reminder set by the handlers above: to its recipients, with the settings of its schedule. */
const reminder: DefaultHandler = (event) => {
  const { schedule, recipients } = reminderOf(event);
  return withRecipients([{ recipients, as: { name: event.name, payload: event.payload ?? {} }, schedule }]);
};

export const APPOINTMENT_HANDLERS: Readonly<Record<string, DefaultHandler>> = {
  [CREATED]: created,
  [UPDATED]: updated,
  [DELETED]: deleted,
  [REMINDER]: reminder,
};
