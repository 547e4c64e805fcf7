import type { Collection } from 'mongodb';
import type { Logger } from 'pino';
import type { Deliver } from './channels.ts';
import type { Channel } from './config.ts';
import { dispatch } from './dispatch.ts';
import { durationMs } from './duration.ts';
import type { Collections, Stored } from './store.ts';
import type { RenderMessage } from './templates.ts';
import type { Users } from './users.ts';

/** A reminder as stored: fires once at `expirationDate` unless ABORTED first. */
export interface Reminder extends Stored {
  readonly eventId: string;
  readonly eventName: string;
  /** The event's key (the appointment, the plan): later events on the key abort it. */
  readonly key?: string;
  readonly recipient: string;
  readonly templateName: string;
  readonly channels: Channel[];
  /** The ISO 8601 duration before the event date it was set for. */
  readonly schedule: string;
  readonly expirationDate: Date;
  readonly status: 'ACTIVE' | 'FIRING' | 'SENT' | 'ABORTED';
  readonly data: unknown;
}

export interface ReminderRequest
  extends Pick<
    Reminder,
    'eventId' | 'eventName' | 'key' | 'recipient' | 'templateName' | 'channels' | 'data'
  > {
  readonly schedules: readonly string[];
  readonly eventDate: Date;
}

/**
 * The built-in scheduler (no `TIMER_SERVICE_URL`): reminders are documents, so they survive a
 * restart; `tick()` fires the due ones, each claimed with one atomic update (ACTIVE → FIRING) so
 * that two replicas never fire the same reminder. Aborted reminders never fire.
 */
export class Reminders {
  private readonly reminders: Collection<Reminder>;

  constructor(
    private readonly store: Collections,
    private readonly users: Users,
    private readonly render: RenderMessage,
    private readonly deliver: Deliver,
    private readonly logger: Logger,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.reminders = store.reminders;
  }

  /** Ticks every `intervalMs` until the returned function is called (a failed tick is logged, the next one retries). */
  run(intervalMs: number): () => Promise<void> {
    let running: Promise<unknown> = Promise.resolve();
    const timer = setInterval(() => {
      running = running
        .then(() => this.tick())
        .catch((err: unknown) => this.logger.error({ err }, 'reminders tick failed'));
    }, intervalMs);
    return async () => {
      clearInterval(timer);
      await running;
    };
  }

  /** One reminder per schedule still in the future; `_id` makes a redelivered event schedule nothing twice. */
  async schedule(
    request: ReminderRequest,
  ): Promise<{ schedule: string; expirationDate: Date; status: string }[]> {
    const scheduled = [];
    for (const schedule of request.schedules) {
      const before = durationMs(schedule);
      if (before === undefined) continue;
      const expirationDate = new Date(request.eventDate.getTime() - before);
      if (expirationDate <= this.now()) continue;
      const { schedules: _, eventDate: __, ...rest } = request;
      const _id = `${request.eventId}:${request.recipient}:${request.templateName}:${schedule}`;
      await this.reminders.updateOne(
        { _id },
        { $setOnInsert: { ...rest, _id, schedule, expirationDate, status: 'ACTIVE' } },
        { upsert: true },
      );
      scheduled.push({ schedule, expirationDate, status: 'ACTIVE' });
    }
    return scheduled;
  }

  /** Aborts every active reminder of the key; answers how many. */
  async abort(key: string): Promise<number> {
    const { modifiedCount } = await this.reminders.updateMany(
      { key, status: 'ACTIVE' },
      { $set: { status: 'ABORTED' } },
    );
    return modifiedCount;
  }

  /** Fires every due reminder; answers how many fired. */
  async tick(): Promise<number> {
    let fired = 0;
    for (;;) {
      const claimed = await this.reminders.findOneAndUpdate(
        { status: 'ACTIVE', expirationDate: { $lte: this.now() } },
        { $set: { status: 'FIRING' } },
        { sort: { expirationDate: 1 }, returnDocument: 'after' },
      );
      if (!claimed) return fired;
      await this.fire(claimed);
      fired++;
    }
  }

  private async fire(reminder: Reminder): Promise<void> {
    const [user] = await this.users.find({ recipients: [reminder.recipient] });
    const template = await this.store.templates.findOne({ name: reminder.templateName });
    const outcomes =
      user && template
        ? await dispatch(
            { users: [user], channels: reminder.channels, template, data: reminder.data },
            this.render,
            this.deliver,
          )
        : undefined;
    const messages = outcomes?.get(reminder.recipient) ?? [];
    if (!user || !template)
      this.logger.warn({ reminder: reminder._id }, 'reminder without its user or template');
    await this.reminders.updateOne(
      { _id: reminder._id },
      { $set: { status: 'SENT', messages, firedAt: this.now() } },
    );
  }
}
