import { randomUUID } from 'node:crypto';
import { Ajv } from 'ajv';
import { MongoServerError } from 'mongodb';
import { HttpError } from '../kit/index.ts';
import type { Deliver } from './channels.ts';
import type { Channel } from './config.ts';
import { DEFAULT_HANDLERS, settingsAudience } from './default-handlers.ts';
import { dispatch, type MessageOutcome } from './dispatch.ts';
import type { DefaultHandler, IncomingEvent, Step } from './handler.ts';
import type { ReminderSummary, Reminders } from './reminders.ts';
import { audienceOf, type NotificationSetting, resolveSettings } from './settings.ts';
import type { Collections, Stored } from './store.ts';
import type { RenderMessage, Template } from './templates.ts';
import type { User, Users } from './users.ts';

export type { IncomingEvent } from './handler.ts';

export interface ProcessedEvent {
  readonly id: string;
  readonly notifications: Stored[];
}

/** Finds the handler an event setting names (`handlerName`); undefined when none is loaded by that name. */
export type HandlerLookup = (handlerName: string) => DefaultHandler | undefined;

const DUPLICATE_KEY = 11000;

/** Recipients of one step served at once. */
const RECIPIENTS_AT_ONCE = 20;

/** Events fired by reminders: `AM/AppointmentReminder/v1`, `TMM/TherapyReminder/v1`, … */
const REMINDER_EVENT = /Reminder\/v\d+$/;

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
}

/** A notification per (event, recipient): its `_id` is what makes a redelivered event send nothing twice. */
const notificationId = (eventId: string, userId: string) => `${eventId}:${userId}`;

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

  constructor(
    private readonly store: Collections,
    private readonly users: Users,
    private readonly activeChannels: readonly Channel[],
    private readonly render: RenderMessage,
    private readonly deliver: Deliver,
    private readonly reminders: Reminders,
    private readonly now: () => Date = () => new Date(),
    private readonly customHandler: HandlerLookup = () => undefined,
  ) {}

  async process(event: IncomingEvent, source: Record<string, unknown>): Promise<ProcessedEvent> {
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
    const handler = handlerName
      ? this.customHandler(handlerName)
      : (DEFAULT_HANDLERS[event.name] ?? (setting ? settingsAudience : undefined));
    if (!handler)
      return this.reject(id, handlerName ? `handler "${handlerName}" is not loaded` : 'Unknown event');
    if (setting?.eventSchema) {
      const validate = this.ajv.compile(setting.eventSchema);
      if (!validate(event)) return this.reject(id, `invalid event: ${this.ajv.errorsText(validate.errors)}`);
    }
    const reminder = REMINDER_EVENT.test(event.name);
    // A timer service that missed an abort still calls back: the reminder stays unsent.
    if (!(reminder && (await this.reminders.aborted(id)))) {
      const supported = setting?.supportedChannels as Channel[] | undefined;
      const notified = new Set((await this.notificationsOf(id)).map((n) => n.recipient as string));
      for (const step of handler({ ...event, id }, this.now()))
        await this.runStep(id, event, step, supported, notified);
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

  /** One step: its reminders aborted, then each recipient not notified yet for this event served. */
  private async runStep(
    id: string,
    event: IncomingEvent,
    step: Step,
    supported: Channel[] | undefined,
    notified: Set<string>,
  ): Promise<void> {
    if (step.abortReminders && event.key) await this.reminders.abort(event.key, step.recipients);
    const all = (await this.store.notificationSettings
      .find({ eventName: step.as.name })
      .toArray()) as unknown as NotificationSetting[];
    const schedule = step.schedule;
    const settings = schedule ? all.filter((s) => s.reminders?.includes(schedule)) : all;
    const candidates = await this.users.find(
      step.recipients ? { recipients: step.recipients } : audienceOf(settings),
    );
    const pending = candidates.filter((user) => !notified.has(user.id));
    if (pending.length === 0) return;
    for (const user of pending) notified.add(user.id);
    const names = [...new Set(settings.map((s) => s.templateName))];
    const templates = new Map(
      (await this.store.templates.find({ name: { $in: names } }).toArray()).map((t) => [t.name as string, t]),
    );
    const context: StepContext = {
      id,
      event,
      step,
      settings,
      templates,
      allowed: (c) => this.activeChannels.includes(c) && (!supported || supported.includes(c)),
      data: { ...step.as.payload, event: { ...event, id, name: step.as.name, payload: step.as.payload } },
      emitter: typeof event.metadata?.emitter === 'string' ? event.metadata.emitter : undefined,
    };
    // Recipients in parallel, a bounded number at a time: a 100-recipient event is not 100 round trips in a row.
    for (let start = 0; start < pending.length; start += RECIPIENTS_AT_ONCE) {
      await Promise.all(
        pending.slice(start, start + RECIPIENTS_AT_ONCE).map((user) => this.notifyUser(user, context)),
      );
    }
  }

  /** Sends one recipient its messages, sets its reminders, stores its notification. */
  private async notifyUser(user: User, context: StepContext): Promise<void> {
    const { id, event, settings, templates, allowed, data, emitter } = context;
    const messages: MessageOutcome[] = [];
    const schedules = new Set<string>();
    for (const { templateName, channels, reminders } of resolveSettings(
      settings,
      user,
      emitter,
      this.now(),
    )) {
      for (const schedule of reminders) schedules.add(schedule);
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
        { users: [user], channels: channels.filter(allowed), template, data },
        this.render,
        this.deliver,
      );
      messages.push(...(sent.get(user.id) ?? []));
    }
    const reminders = await this.remind(id, event, context.step, user.id, schedules);
    if (messages.length === 0 && reminders.length === 0) return;
    await this.store.notifications.insertOne({
      _id: notificationId(id, user.id),
      event: { id, name: event.name, key: event.key },
      recipient: user.id,
      messages,
      reminders,
      createdAt: this.now(),
    });
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
