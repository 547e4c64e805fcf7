import { createHash } from 'node:crypto';
import type { Collection, Filter } from 'mongodb';
import type { Logger } from 'pino';
import type { IncomingEvent } from './handler.ts';
import { notificationId, type Stored } from './store.ts';

/**
 * A reminder as stored: the event it fires at `expirationDate` (its `_id` is the event's id, so a
 * reminder fired twice is processed once), unless ABORTED first.
 *
 * Its status is the reference's, nothing else: `ACTIVE` from when it is set until it is aborted
 * (`ABORTED`), firing included, or `ERROR` when the timer service refused it. Whether it fired is
 * a fact beside the status (`firedAt`), not a state of its own: the reference's `abortReminders`
 * aborts every `ACTIVE` reminder of the key on the timer service, fired or not, and so does this
 * service, so the stored notification and the timer service never disagree.
 */
export interface Reminder extends Stored {
  /** The event that set it. */
  readonly eventId: string;
  /** The event's key (the appointment, the plan): later events on the key abort it. */
  readonly key?: string;
  readonly recipient: string;
  /** The ISO 8601 duration before the date it reminds of. */
  readonly schedule: string;
  readonly expirationDate: Date;
  readonly status: 'ACTIVE' | 'ABORTED' | 'ERROR';
  readonly event: IncomingEvent & { readonly id: string };
  /** The timer service's id of its expiration (none with the built-in scheduler). */
  readonly expirationId?: string;
  readonly error?: { readonly message: string };
  /** When its event was processed (posted back by the timer service, or fired by the built-in scheduler). */
  readonly firedAt?: Date;
  /** When the built-in scheduler claimed it to fire it: no other replica claims it within the lease. */
  readonly claimedAt?: Date;
}

export type ReminderRequest = Pick<
  Reminder,
  'eventId' | 'key' | 'recipient' | 'schedule' | 'expirationDate'
> & {
  readonly event: Omit<IncomingEvent, 'id'>;
};

/**
 * What a notification's `reminders` lists, as the reference's notification reminders: "If the
 * reminder was processed correctly (`ACTIVE` or `ABORTED`) or not (`ERROR`)" — the stored
 * reminder's own status. A reminder that fired stays ACTIVE, as in the reference (its timer
 * service tells nobody), and a later abort makes it ABORTED.
 */
export type ReminderSummary = Pick<Reminder, 'schedule' | 'expirationDate' | 'expirationId' | 'error'> & {
  readonly id: string;
  readonly status: Reminder['status'];
};

/** Where reminders wait for their time: the timer service, or the built-in scheduler (nothing to call). */
export interface ReminderBackend {
  /** Answers the expiration id the backend gave the reminder, if any. */
  schedule(reminder: Reminder): Promise<string | undefined>;
  abort(reminder: Reminder): Promise<void>;
}

export const BUILT_IN_SCHEDULER: ReminderBackend = {
  schedule: async () => undefined,
  abort: async () => undefined,
};

/** A reminder claimed longer ago than this and not fired was left by a crash: claimed again (its event is idempotent). */
const CLAIM_LEASE_MS = 60_000;

/** A reminder's id from what makes it unique: a redelivered event sets nothing twice. */
function reminderId({ eventId, recipient, schedule, expirationDate }: ReminderRequest): string {
  return createHash('sha256')
    .update(`${eventId}\n${recipient}\n${schedule}\n${expirationDate.toISOString()}`)
    .digest('base64url')
    .slice(0, 24);
}

const summary = (r: Reminder): ReminderSummary => ({
  id: r._id,
  schedule: r.schedule,
  expirationDate: r.expirationDate,
  status: r.status,
  ...(r.expirationId ? { expirationId: r.expirationId } : {}),
  ...(r.error ? { error: r.error } : {}),
});

/**
 * Reminders are documents whatever the backend, so they survive a restart and an abort is known
 * even when the timer service missed it: a reminder event whose reminder is ABORTED is not sent.
 * With the built-in scheduler, `tick()` fires the due ones, each claimed with one atomic update
 * (`claimedAt`) so that two replicas never fire the same reminder at once.
 */
export class Reminders {
  constructor(
    private readonly reminders: Collection<Reminder>,
    /** Where each reminder is listed too (the notification of the event that set it, for its recipient). */
    private readonly notifications: Collection<Stored>,
    private readonly backend: ReminderBackend,
    private readonly logger: Logger,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * Stores the reminder and hands it to the backend; a failure there is the reminder's ERROR, as
   * the reference stores it. Stored before it is handed over: a crash in between leaves it ACTIVE
   * without an expiration id, and the redelivered event hands it over then (a reminder handed
   * over twice fires an event processed once).
   */
  async schedule(request: ReminderRequest): Promise<ReminderSummary> {
    const _id = reminderId(request);
    const fresh: Reminder = { ...request, _id, status: 'ACTIVE', event: { ...request.event, id: _id } };
    const { upsertedCount } = await this.reminders.updateOne(
      { _id },
      { $setOnInsert: fresh },
      { upsert: true },
    );
    const reminder = upsertedCount === 1 ? fresh : ((await this.reminders.findOne({ _id })) ?? fresh);
    if (reminder.status !== 'ACTIVE' || reminder.expirationId) return summary(reminder);
    try {
      const expirationId = await this.backend.schedule(reminder);
      if (!expirationId) return summary(reminder);
      await this.reminders.updateOne({ _id }, { $set: { expirationId } });
      return summary({ ...reminder, expirationId });
    } catch (error) {
      const failed = { status: 'ERROR' as const, error: { message: (error as Error).message } };
      await this.reminders.updateOne({ _id }, { $set: failed });
      return summary({ ...reminder, ...failed });
    }
  }

  /**
   * Aborts the active reminders of the key (for these recipients only, and set by events of these
   * names only, when given); answers the reminders it aborted. As the reference's
   * `abortReminders`: every `ACTIVE` one — fired already or not, the reference cannot tell — goes
   * to the backend's abort (`POST /abort` with its expiration id); "if the Timer Service returns a
   * successfull response, set the reminder status to ABORTED; if the Timer Service returns an
   * error, catch it and leave the reminder status to ACTIVE", here and on the notification that
   * lists it.
   */
  async abort(
    key: string,
    recipients?: readonly string[],
    eventNames?: readonly string[],
  ): Promise<Reminder[]> {
    const byRecipient = recipients ? { recipient: { $in: [...recipients] } } : {};
    const active = await this.reminders
      .find({
        key,
        status: 'ACTIVE',
        ...byRecipient,
        ...(eventNames ? { eventId: { $in: await this.eventsNamed(key, eventNames, byRecipient) } } : {}),
      })
      .toArray();
    const aborted: Reminder[] = [];
    for (const reminder of active) {
      try {
        await this.backend.abort(reminder);
      } catch (error) {
        this.logger.warn(
          { err: error, reminder: reminder._id },
          'timer service abort failed: the reminder stays ACTIVE',
        );
        await this.reminders.updateOne(
          { _id: reminder._id },
          { $set: { abortError: { message: (error as Error).message } } },
        );
        continue;
      }
      // Not ACTIVE any more: a concurrent abort of the key did it.
      const { modifiedCount } = await this.reminders.updateOne(
        { _id: reminder._id, status: 'ACTIVE' },
        { $set: { status: 'ABORTED' }, $unset: { abortError: '' } },
      );
      if (modifiedCount === 0) continue;
      await this.markAborted(reminder);
      aborted.push(reminder);
    }
    return aborted;
  }

  /**
   * The ids of the events of the key with one of these names that set reminders, as the reference
   * finds them: the notifications whose "event name matches any of the `query.eventName`", whose
   * "event key matches the `event.key`" (a reminder does not store the name of the event that set it).
   */
  private async eventsNamed(
    key: string,
    eventNames: readonly string[],
    byRecipient: { recipient?: { $in: string[] } },
  ): Promise<string[]> {
    const notifications = await this.notifications
      .find(
        { 'event.key': key, 'event.name': { $in: [...eventNames] }, ...byRecipient },
        { projection: { 'event.id': 1 } },
      )
      .toArray();
    return [...new Set(notifications.map((n) => (n.event as { id: string }).id))];
  }

  /**
   * The reminder's entry on its notification made ABORTED. The whole list is written back only if
   * nobody changed it meanwhile (compare-and-set, retried): an update of one array element by
   * position is more than some MongoDB-compatible stores do.
   */
  private async markAborted(reminder: Reminder): Promise<void> {
    const _id = notificationId(reminder.eventId, reminder.recipient);
    for (;;) {
      const current = (await this.notifications.findOne({ _id }))?.reminders as ReminderSummary[] | undefined;
      if (!current?.some((r) => r.id === reminder._id && r.status !== 'ABORTED')) return;
      const next = current.map((r) => (r.id === reminder._id ? { ...r, status: 'ABORTED' } : r));
      const { matchedCount } = await this.notifications.updateOne(
        { _id, reminders: current },
        { $set: { reminders: next } },
      );
      if (matchedCount === 1) return;
    }
  }

  /** Whether the event is a reminder that was aborted (its firing is then ignored). */
  async aborted(eventId: string): Promise<boolean> {
    return (await this.reminders.countDocuments({ _id: eventId, status: 'ABORTED' })) > 0;
  }

  /** The reminder's event was processed: noted beside its status, which stays ACTIVE (above). */
  async fired(eventId: string): Promise<void> {
    await this.reminders.updateOne(
      { _id: eventId, status: 'ACTIVE', firedAt: { $exists: false } },
      { $set: { firedAt: this.now() } },
    );
  }

  /**
   * Reminders stored by an earlier version with its own statuses (`SENT` once fired, `FIRING`
   * while claimed) get the reference's `ACTIVE` back, their `firedAt` and `claimedAt` kept, so a
   * later abort reaches them; answers how many.
   */
  async adoptLegacyStatuses(): Promise<number> {
    const legacy = { status: { $in: ['SENT', 'FIRING'] } } as unknown as Filter<Reminder>;
    return (await this.reminders.updateMany(legacy, { $set: { status: 'ACTIVE' } })).modifiedCount;
  }

  /** Ticks every `intervalMs` until the returned function is called (a failed tick is logged, the next one retries). */
  run(intervalMs: number, fire: (event: Reminder['event']) => Promise<unknown>): () => Promise<void> {
    let running: Promise<unknown> = Promise.resolve();
    const timer = setInterval(() => {
      running = running
        .then(() => this.tick(fire))
        .catch((err: unknown) => this.logger.error({ err }, 'reminders tick failed'));
    }, intervalMs);
    return async () => {
      clearInterval(timer);
      await running;
    };
  }

  /**
   * The built-in scheduler: fires every due reminder it holds (those without a timer expiration)
   * that has not fired, and those a crash left claimed; answers how many fired. A failed fire stays
   * claimed and is claimed again after the lease.
   */
  async tick(fire: (event: Reminder['event']) => Promise<unknown>): Promise<number> {
    let fired = 0;
    for (;;) {
      const now = this.now();
      const claimed = await this.reminders.findOneAndUpdate(
        {
          expirationId: { $exists: false },
          status: 'ACTIVE',
          firedAt: { $exists: false },
          expirationDate: { $lte: now },
          $or: [
            { claimedAt: { $exists: false } },
            { claimedAt: { $lte: new Date(now.getTime() - CLAIM_LEASE_MS) } },
          ],
        },
        { $set: { claimedAt: now } },
        { sort: { expirationDate: 1 }, returnDocument: 'after' },
      );
      if (!claimed) return fired;
      await fire(claimed.event);
      await this.fired(claimed._id);
      fired++;
    }
  }
}
