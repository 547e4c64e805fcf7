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
import { planReminder } from './plan-days.ts';

const PLAN_PARTICIPANTS = ['doctorId', 'patientId'];

/** `metadata.includeUsers` and `metadata.excludeUsers`. */
function includedExcluded(event: IncomingEvent) {
  return {
    include: idsIn(event.metadata, ['includeUsers']),
    exclude: idsIn(event.metadata, ['excludeUsers']),
  };
}

/** The ids with the included users added and the excluded removed (an id in both is excluded). */
export function adjusted(ids: readonly string[], event: IncomingEvent, include = true): string[] {
  const { include: added, exclude } = includedExcluded(event);
  return [...new Set([...ids, ...(include ? added : [])])].filter((id) => !exclude.includes(id));
}

/**
 * The handlers of a TMM plan kind (`Therapy`, `Monitoring`): created, updated, deleted, and the
 * recurring reminder sent before each day of the plan. The reference's handlers of the two kinds
 * differ only in their names and payload fields.
 */
export function planHandlers(kind: 'Therapy' | 'Monitoring'): Record<string, DefaultHandler> {
  const names = {
    created: `TMM/${kind}Created/v1`,
    updated: `TMM/${kind}Updated/v1`,
    deleted: `TMM/${kind}Deleted/v1`,
    reminder: `TMM/${kind}Reminder/v1`,
  };
  /** Reminders before the plan's next days, from `after` on. */
  const remind = (plan: Record<string, unknown>, after: Date): NonNullable<Step['remind']> => ({
    name: names.reminder,
    payload: plan,
    expiration: (schedule) => planReminder(plan, schedule, after),
  });

  const created: DefaultHandler = (event, now) => {
    const plan = event.payload ?? {};
    return withRecipients([
      {
        recipients: adjusted(idsIn(plan, PLAN_PARTICIPANTS), event),
        as: { name: event.name, payload: plan },
        remind: remind(plan, now),
      },
    ]);
  };

  const deleted: DefaultHandler = (event) => {
    const plan = event.payload ?? {};
    return withRecipients([
      {
        recipients: adjusted(idsIn(plan, PLAN_PARTICIPANTS), event),
        as: { name: event.name, payload: plan },
        abortReminders: true,
      },
    ]);
  };

  /** New participants: created; old ones: deleted and aborted; the others: the update, aborted and rescheduled. */
  const updated: DefaultHandler = (event, now) => {
    const original = objectAt(event.payload, `original${kind}`);
    const current = objectAt(event.payload, `current${kind}`);
    const changes = participantChanges(idsIn(original, PLAN_PARTICIPANTS), idsIn(current, PLAN_PARTICIPANTS));
    return withRecipients([
      {
        recipients: adjusted(changes.added, event, false),
        as: { name: names.created, payload: current },
        remind: remind(current, now),
      },
      {
        recipients: adjusted(changes.removed, event, false),
        as: { name: names.deleted, payload: original },
        abortReminders: true,
      },
      {
        recipients: adjusted(changes.kept, event),
        as: { name: event.name, payload: event.payload ?? {} },
        abortReminders: true,
        remind: remind(current, now),
      },
    ]);
  };

  /** Sent to its recipients with the settings of its schedule, then set again before the plan's next day. */
  const reminder: DefaultHandler = (event, now) => {
    const { schedule, recipients } = reminderOf(event);
    const plan = event.payload ?? {};
    const expired = Date.parse(
      String((event.metadata?.reminder as { expirationDate?: unknown })?.expirationDate),
    );
    const after = new Date(Math.max(now.getTime(), Number.isNaN(expired) ? 0 : expired));
    const next = remind(plan, after);
    return withRecipients([
      {
        recipients,
        as: { name: event.name, payload: plan },
        schedule,
        remind: { ...next, expiration: (s) => (s === schedule ? next.expiration(s) : undefined) },
      },
    ]);
  };

  return {
    [names.created]: created,
    [names.updated]: updated,
    [names.deleted]: deleted,
    [names.reminder]: reminder,
  };
}
