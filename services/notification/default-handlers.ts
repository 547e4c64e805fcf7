import { APPOINTMENT_HANDLERS } from './appointment-handlers.ts';
import { type DefaultHandler, idsIn, objectAt, reminderOf, withRecipients } from './handler.ts';
import { adjusted, planHandlers } from './plan-handlers.ts';

/** A detection over a plan's thresholds: to the plan's doctor (and the included users). */
const thresholdExceeded: DefaultHandler = (event) => {
  const payload = event.payload ?? {};
  const doctor = [payload, objectAt(payload, 'plan'), objectAt(payload, 'detection')].flatMap((where) =>
    idsIn(where, ['doctorId']),
  );
  return withRecipients([
    { recipients: adjusted(doctor.slice(0, 1), event), as: { name: event.name, payload } },
  ]);
};

/** An integrity violation: to every user its notification settings target. */
const resourceForbidden: DefaultHandler = (event) => [
  { as: { name: event.name, payload: event.payload ?? {} } },
];

/** The reference's default handlers, by event name. */
export const DEFAULT_HANDLERS: Readonly<Record<string, DefaultHandler>> = {
  ...APPOINTMENT_HANDLERS,
  ...planHandlers('Therapy'),
  ...planHandlers('Monitoring'),
  'TMM/ThresholdExceeded/v1': thresholdExceeded,
  'IC/ResourceForbiddenEvent/v1': resourceForbidden,
};

/** The events the reference handles without a custom handler. */
export const DEFAULT_EVENTS: readonly string[] = Object.keys(DEFAULT_HANDLERS);

/**
 * An event with event settings but no handler of its own: to every user its settings target, or,
 * for a reminder a custom handler set (`metadata.reminder`), to its recipients with the settings of
 * its schedule.
 */
export const settingsAudience: DefaultHandler = (event) => {
  const { schedule, recipients } = reminderOf(event);
  if (!event.metadata?.reminder) return resourceForbidden(event, new Date(0));
  return withRecipients([{ recipients, schedule, as: { name: event.name, payload: event.payload ?? {} } }]);
};
