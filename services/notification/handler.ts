/** An event as the handlers see it (HTTP body or Kafka message, after validation). */
export interface IncomingEvent {
  readonly id?: string;
  readonly name: string;
  readonly key?: string;
  readonly metadata?: Record<string, unknown>;
  readonly payload?: Record<string, unknown>;
}

/** The event whose notification settings and template data apply to some recipients. */
export interface EventAs {
  readonly name: string;
  readonly payload: Record<string, unknown>;
}

/**
 * One part of an event's work, as the reference's handlers do it: who is notified, as which event,
 * and what happens to their reminders. A handler answers steps; the processor runs them.
 */
export interface Step {
  /** User ids; undefined: every user the settings of `as.name` target. */
  readonly recipients?: readonly string[];
  readonly as: EventAs;
  /** Abort the recipients' active reminders on the event's key before sending. */
  readonly abortReminders?: boolean;
  /** Only the settings whose `reminders` hold this schedule (a reminder event). */
  readonly schedule?: string;
  /** Reminders to set from the deciding settings' `reminders`: the event they fire, and when each schedule expires. */
  readonly remind?: EventAs & { readonly expiration: (schedule: string) => Date | undefined };
}

/** A default handler: the steps of one event at `now`. */
export type DefaultHandler = (event: IncomingEvent, now: Date) => Step[];

/** The fields of `record` as user ids: each a string or an array of strings. */
export function idsIn(record: unknown, fields: readonly string[]): string[] {
  if (typeof record !== 'object' || record === null) return [];
  const ids = fields.flatMap((field) => {
    const value = (record as Record<string, unknown>)[field];
    return Array.isArray(value) ? value : [value];
  });
  return [...new Set(ids.filter((id): id is string => typeof id === 'string' && id !== ''))];
}

/** The object under `field` of the payload (an update's original or current resource). */
export function objectAt(
  payload: Record<string, unknown> | undefined,
  field: string,
): Record<string, unknown> {
  const value = payload?.[field];
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
}

/** Who was added, removed and kept between two versions of a resource's participants. */
export function participantChanges(before: readonly string[], after: readonly string[]) {
  return {
    added: after.filter((id) => !before.includes(id)),
    removed: before.filter((id) => !after.includes(id)),
    kept: after.filter((id) => before.includes(id)),
  };
}

/** A reminder event's `metadata.reminder`: its schedule and recipients. */
export function reminderOf(event: IncomingEvent): { schedule?: string; recipients: string[] } {
  const reminder = event.metadata?.reminder as { schedule?: unknown; recipients?: unknown } | undefined;
  return {
    schedule: typeof reminder?.schedule === 'string' ? reminder.schedule : undefined,
    recipients: idsIn(reminder, ['recipients']),
  };
}

/** Steps with nobody to notify are dropped. */
export const withRecipients = (steps: Step[]): Step[] =>
  steps.filter((step) => step.recipients === undefined || step.recipients.length > 0);
