import { randomUUID } from 'node:crypto';
import { Ajv } from 'ajv';
import { MongoServerError } from 'mongodb';
import type { Logger } from 'pino';
import { HttpError } from '../kit/index.ts';
import type { AttachmentRef } from './attachments.ts';
import type { Deliver } from './channels.ts';
import type { Channel } from './config.ts';
import {
  type CustomHandler,
  type HandlerToolkit,
  handlerUtils,
  type MessageSpec,
} from './custom-handlers.ts';
import { DEFAULT_HANDLERS, settingsAudience } from './default-handlers.ts';
import { dispatch, type MessageOutcome, retryable } from './dispatch.ts';
import type { IncomingEvent, Step } from './handler.ts';
import type { ReminderSummary, Reminders } from './reminders.ts';
import { audienceOf, type NotificationSetting, resolveSettings } from './settings.ts';
import { type Collections, notificationId, type Stored } from './store.ts';
import type { RenderMessage, Template } from './templates.ts';
import type { User, Users } from './users.ts';

export type { IncomingEvent } from './handler.ts';

export interface ProcessedEvent {
  readonly id: string;
  readonly notifications: Stored[];
}

export interface EventProcessorOptions {
  readonly store: Collections;
  readonly users: Users;
  readonly activeChannels: readonly Channel[];
  readonly render: RenderMessage;
  readonly deliver: Deliver;
  readonly reminders: Reminders;
  readonly logger: Logger;
  readonly now?: () => Date;
  /** `CUSTOM_HANDLERS_FOLDER`'s handlers by file name, as event settings' `handlerName` names them. */
  readonly customHandlers?: ReadonlyMap<string, CustomHandler>;
}

const DUPLICATE_KEY = 11000;

/** Recipients of one step served at once. */
const RECIPIENTS_AT_ONCE = 20;

/** Events fired by reminders: `AM/AppointmentReminder/v1`, `TMM/TherapyReminder/v1`, … */
const REMINDER_EVENT = /Reminder\/v\d+$/;

/** How an intake wants an event processed. */
export interface ProcessOptions {
  /**
   * A message whose channel was unavailable fails the event (503, left RECEIVED) instead of being
   * stored as a FAILURE: the Kafka intake retries it, without committing, until the channel takes
   * it; what was sent is stored, so a retry sends only what is missing.
   */
  readonly untilDelivered?: boolean;
}

/** A template to send on some channels, with custom attachments (email only). */
interface Delivery {
  readonly templateName: string;
  readonly channels: readonly Channel[];
  readonly attachments?: readonly AttachmentRef[];
}

/**
 * A custom handler's messages as deliveries: one per template for the channels without custom
 * attachments, and one of its own for each email message with some ("custom attachments … will be
 * sent if the `email` channel is specified": on other channels they are ignored).
 */
function customDeliveries(messages: readonly MessageSpec[]): Delivery[] {
  const shared = new Map<string, Channel[]>();
  const own: Delivery[] = [];
  for (const { templateName, channel, attachments } of messages) {
    if (channel === 'email' && attachments?.length)
      own.push({ templateName, channels: [channel], attachments });
    else shared.set(templateName, [...(shared.get(templateName) ?? []), channel]);
  }
  return [...[...shared].map(([templateName, channels]) => ({ templateName, channels })), ...own];
}

/** What every recipient of one step shares. */
interface StepContext {
  readonly id: string;
  readonly event: IncomingEvent;
  readonly step: Step;
  readonly settings: readonly NotificationSetting[];
  readonly templates: ReadonlyMap<string, Template>;
  readonly allowed: (channel: Channel) => boolean;
  readonly data: unknown;
  readonly emitter: string | undefined;
  /** The messages already stored of the recipients being served again (some failed retryably). */
  readonly before: ReadonlyMap<string, readonly MessageOutcome[]>;
}

/**
 * One code path for events from HTTP, Kafka and reminders: store RECEIVED (the event id is the
 * idempotency key), find its handler (custom, default, or the settings' audience for an event with
 * settings; else ERROR and a 400), validate it against the event setting's schema, run the
 * handler's steps (recipients, settings resolved per user, messages, reminders aborted and set),
 * store one notification per recipient, mark PROCESSED. A redelivered event resends nothing
 * already stored.
 */
export class EventProcessor {
  private readonly ajv = new Ajv({ allErrors: true, strict: false });
  private readonly store: Collections;
  private readonly users: Users;
  private readonly reminders: Reminders;
  private readonly now: () => Date;
  private readonly customHandlers: ReadonlyMap<string, CustomHandler>;

  constructor(private readonly options: EventProcessorOptions) {
    ({ store: this.store, users: this.users, reminders: this.reminders } = options);
    this.now = options.now ?? (() => new Date());
    this.customHandlers = options.customHandlers ?? new Map();
  }

  async process(
    event: IncomingEvent,
    source: Record<string, unknown>,
    options: ProcessOptions = {},
  ): Promise<ProcessedEvent> {
    const id = event.id ?? randomUUID();
    const stored = { ...event, _id: id, id, source, status: 'RECEIVED', receivedAt: this.now() };
    try {
      await this.store.events.insertOne(stored);
    } catch (error) {
      if (!(error instanceof MongoServerError && error.code === DUPLICATE_KEY)) throw error;
      const seen = await this.store.events.findOne({ _id: id });
      if (seen?.status === 'PROCESSED') return { id, notifications: await this.notificationsOf(id) };
      if (seen?.status === 'ERROR')
        throw new HttpError(400, `event "${id}" was rejected before: ${seen.errors?.[0]?.message ?? ''}`);
    }
    const setting = await this.store.eventSettings.findOne({ eventName: event.name });
    const handlerName = typeof setting?.handlerName === 'string' ? setting.handlerName : undefined;
    const custom = handlerName === undefined ? undefined : this.customHandlers.get(handlerName);
    if (handlerName !== undefined && !custom)
      return this.reject(id, `handler "${handlerName}" is not loaded`);
    const handler = DEFAULT_HANDLERS[event.name] ?? (setting ? settingsAudience : undefined);
    if (!custom && !handler) return this.reject(id, 'Unknown event');
    if (setting?.eventSchema) {
      const validate = this.ajv.compile(setting.eventSchema);
      if (!validate(event)) return this.reject(id, `invalid event: ${this.ajv.errorsText(validate.errors)}`);
    }
    const reminder = REMINDER_EVENT.test(event.name);
    const allowed = this.allowedChannels(setting?.supportedChannels as Channel[] | undefined);
    // A timer service that missed an abort still calls back: the reminder stays unsent.
    if (!(reminder && (await this.reminders.aborted(id)))) {
      if (custom) await this.runCustom(custom, handlerName ?? '', { ...event, id }, allowed);
      else if (handler) {
        // Served already: the recipients stored, but for those with a message still to deliver.
        const stored = await this.notificationsOf(id);
        const retrying = stored.filter((n) => (n.messages as MessageOutcome[]).some(retryable));
        const before = new Map(retrying.map((n) => [n.recipient as string, n.messages as MessageOutcome[]]));
        const notified = new Set(stored.map((n) => n.recipient as string).filter((r) => !before.has(r)));
        let undelivered = 0;
        for (const step of handler({ ...event, id }, this.now()))
          undelivered += await this.runStep(id, event, step, allowed, notified, before);
        if (undelivered > 0 && options.untilDelivered)
          throw new HttpError(
            503,
            `${undelivered} messages not delivered yet: a channel service is unavailable`,
          );
      }
    }
    await this.store.events.updateOne(
      { _id: id },
      { $set: { status: 'PROCESSED', processedAt: this.now() } },
    );
    if (reminder) await this.reminders.fired(id);
    return { id, notifications: await this.notificationsOf(id) };
  }

  private async reject(id: string, message: string): Promise<never> {
    await this.store.events.updateOne({ _id: id }, { $set: { status: 'ERROR', errors: [{ message }] } });
    throw new HttpError(400, message);
  }

  private notificationsOf(eventId: string) {
    return this.store.notifications.find({ 'event.id': eventId }).sort({ _id: 1 }).toArray();
  }

  /**
   * One step: its reminders aborted, then each recipient not notified yet for this event served;
   * answers how many messages failed retryably.
   */
  private async runStep(
    id: string,
    event: IncomingEvent,
    step: Step,
    allowed: (channel: Channel) => boolean,
    notified: Set<string>,
    before: ReadonlyMap<string, readonly MessageOutcome[]>,
  ): Promise<number> {
    if (step.abortReminders && event.key) await this.reminders.abort(event.key, step.recipients);
    const all = await this.settingsOf(step.as.name);
    const schedule = step.schedule;
    const settings = schedule ? all.filter((s) => s.reminders?.includes(schedule)) : all;
    const candidates = await this.users.find(
      step.recipients ? { recipients: step.recipients } : audienceOf(settings),
    );
    const pending = candidates.filter((user) => !notified.has(user.id));
    if (pending.length === 0) return 0;
    for (const user of pending) notified.add(user.id);
    const context: StepContext = {
      id,
      event,
      step,
      settings,
      templates: await this.templatesOf(settings.map((s) => s.templateName)),
      allowed,
      data: step.as.payload,
      emitter: typeof event.metadata?.emitter === 'string' ? event.metadata.emitter : undefined,
      before,
    };
    let undelivered = 0;
    // Recipients in parallel, a bounded number at a time: a 100-recipient event is not 100 round trips in a row.
    for (let start = 0; start < pending.length; start += RECIPIENTS_AT_ONCE) {
      const counts = await Promise.all(
        pending.slice(start, start + RECIPIENTS_AT_ONCE).map((user) => this.notifyUser(user, context)),
      );
      undelivered += counts.reduce((sum, n) => sum + n, 0);
    }
    return undelivered;
  }

  /**
   * Sends one recipient its messages (those not stored as done already), sets its reminders,
   * stores its notification; answers how many messages failed retryably.
   */
  private async notifyUser(user: User, context: StepContext): Promise<number> {
    const { id, event, settings, templates, allowed, data, emitter } = context;
    const done = (context.before.get(user.id) ?? []).filter((m) => !retryable(m));
    const deliveries = resolveSettings(settings, user, emitter, this.now()).map((delivery) => ({
      ...delivery,
      channels: delivery.channels.filter(
        (channel) => !done.some((m) => m.channel === channel && m.templateName === delivery.templateName),
      ),
    }));
    const schedules = new Set(deliveries.flatMap((d) => d.reminders));
    const messages = [...done, ...(await this.messagesTo(user, deliveries, templates, data, allowed))];
    const reminders = await this.remind(id, event, context.step, user.id, schedules);
    if (messages.length === 0 && reminders.length === 0) return 0;
    const _id = notificationId(id, user.id);
    await this.store.notifications.replaceOne(
      { _id },
      {
        _id,
        event: { id, name: event.name, key: event.key },
        recipient: user.id,
        messages,
        reminders,
        createdAt: this.now(),
      },
      { upsert: true },
    );
    return messages.filter(retryable).length;
  }

  /** The template on each channel to one user; a template not found is a FAILURE on its channels. */
  private async messagesTo(
    user: User,
    deliveries: readonly Delivery[],
    templates: ReadonlyMap<string, Template>,
    data: unknown,
    allowed: (channel: Channel) => boolean,
  ): Promise<MessageOutcome[]> {
    const messages: MessageOutcome[] = [];
    for (const { templateName, channels, attachments } of deliveries) {
      const template = templates.get(templateName);
      if (!template) {
        messages.push(
          ...channels.map((channel) => ({
            status: 'FAILURE' as const,
            channel,
            templateName,
            error: { message: 'template not found' },
          })),
        );
        continue;
      }
      const sent = await dispatch(
        {
          users: [user],
          channels: channels.filter(allowed),
          template,
          data,
          // Merged after the template's own by dispatch: "sent together with template attachments".
          ...(attachments ? { extras: { attachments } } : {}),
        },
        this.options.render,
        this.options.deliver,
      );
      // The message lists its custom attachments, as the reference's notification does.
      messages.push(...(sent.get(user.id) ?? []).map((m) => (attachments ? { ...m, attachments } : m)));
    }
    return messages;
  }

  private allowedChannels(supported: readonly Channel[] | undefined) {
    const active = this.options.activeChannels;
    return (channel: Channel) => active.includes(channel) && (!supported || supported.includes(channel));
  }

  private async settingsOf(eventName: string): Promise<NotificationSetting[]> {
    return (await this.store.notificationSettings
      .find({ eventName })
      .toArray()) as unknown as NotificationSetting[];
  }

  private async templatesOf(names: readonly string[]): Promise<Map<string, Template>> {
    const found = await this.store.templates.find({ name: { $in: [...new Set(names)] } }).toArray();
    return new Map(found.map((t) => [t.name as string, t]));
  }

  /**
   * A custom handler with the reference's utils; what it sends and sets is stored on this event's
   * notifications (a redelivered event resends nothing already stored). A handler that throws
   * leaves the event ERROR, as in the reference.
   */
  private async runCustom(
    handler: CustomHandler,
    name: string,
    event: IncomingEvent & { id: string },
    allowed: (channel: Channel) => boolean,
  ): Promise<void> {
    const { id } = event;
    const stored = (user: User) => this.store.notifications.findOne({ _id: notificationId(id, user.id) });
    const kit: HandlerToolkit = {
      eventId: id,
      now: this.now,
      findUsers: (audience) => this.users.find(audience),
      settingsOf: (eventName) => this.settingsOf(eventName),
      send: async (sent, user, messages) => {
        const already = (await stored(user))?.messages as MessageOutcome[] | undefined;
        if (already?.length) return already;
        const templates = await this.templatesOf(messages.map((m) => m.templateName));
        return this.messagesTo(user, customDeliveries(messages), templates, sent.payload ?? {}, allowed);
      },
      remind: (reminderEvent, user, reminder) =>
        this.reminders.schedule({
          eventId: id,
          key: reminderEvent.key,
          recipient: user.id,
          schedule: reminder.schedule,
          expirationDate: new Date(reminder.expirationDate),
          event: {
            name: reminderEvent.name,
            key: reminderEvent.key,
            // "its original value would be overwritten by the given notification reminder object"
            metadata: { ...reminderEvent.metadata, reminder },
            payload: reminderEvent.payload,
          },
        }),
      abort: async (key, recipients, eventNames) => {
        const aborted = await this.reminders.abort(key, recipients, eventNames);
        const ids = [...new Set(aborted.map((r) => notificationId(r.eventId, r.recipient)))];
        if (ids.length === 0) return [];
        return this.store.notifications
          .find({ _id: { $in: ids } })
          .sort({ _id: 1 })
          .toArray();
      },
      save: async (user, part) =>
        (await this.store.notifications.findOneAndUpdate(
          { _id: notificationId(id, user.id) },
          {
            $set: part,
            $setOnInsert: {
              event: { id, name: event.name, key: event.key },
              recipient: user.id,
              createdAt: this.now(),
            },
          },
          { upsert: true, returnDocument: 'after' },
        )) as Stored,
    };
    try {
      await Promise.all([await handler({ log: this.options.logger }, event, handlerUtils(kit))].flat());
    } catch (error) {
      const message = `handler "${name}" failed: ${(error as Error).message}`;
      await this.store.events.updateOne({ _id: id }, { $set: { status: 'ERROR', errors: [{ message }] } });
      throw new HttpError(500, message);
    }
  }

  /** The step's reminders for one recipient: one per schedule whose expiration is still ahead. */
  private async remind(
    eventId: string,
    event: IncomingEvent,
    step: Step,
    recipient: string,
    schedules: ReadonlySet<string>,
  ): Promise<ReminderSummary[]> {
    const { remind } = step;
    if (!remind) return [];
    const set: ReminderSummary[] = [];
    for (const schedule of schedules) {
      const expirationDate = remind.expiration(schedule);
      if (!expirationDate || expirationDate <= this.now()) continue;
      const reminder = { schedule, expirationDate: expirationDate.toISOString(), recipients: [recipient] };
      set.push(
        await this.reminders.schedule({
          eventId,
          key: event.key,
          recipient,
          schedule,
          expirationDate,
          event: {
            name: remind.name,
            key: event.key,
            metadata: { ...event.metadata, reminder },
            payload: remind.payload,
          },
        }),
      );
    }
    return set;
  }
}
