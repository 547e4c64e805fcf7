import { randomUUID } from 'node:crypto';
import { Ajv } from 'ajv';
import { MongoServerError } from 'mongodb';
import { HttpError } from '../kit/index.ts';
import type { Deliver } from './channels.ts';
import type { Channel } from './config.ts';
import { dispatch, type MessageOutcome } from './dispatch.ts';
import type { Reminders } from './reminders.ts';
import { audienceOf, type NotificationSetting, resolveSettings } from './settings.ts';
import type { Collections, Stored } from './store.ts';
import type { RenderMessage, Template } from './templates.ts';
import type { User, Users } from './users.ts';

/** The events the reference handles without a custom handler. */
export const DEFAULT_EVENTS: readonly string[] = [
  'AM/AppointmentCreated/v1',
  'AM/AppointmentUpdated/v1',
  'AM/AppointmentDeleted/v1',
  'AM/AppointmentReminder/v1',
  'TMM/TherapyCreated/v1',
  'TMM/TherapyUpdated/v1',
  'TMM/TherapyDeleted/v1',
  'TMM/TherapyReminder/v1',
  'TMM/MonitoringCreated/v1',
  'TMM/MonitoringUpdated/v1',
  'TMM/MonitoringDeleted/v1',
  'TMM/MonitoringReminder/v1',
  'TMM/ThresholdExceeded/v1',
  'RBAC/ResourceForbidden/v1',
];

export interface IncomingEvent {
  readonly id?: string;
  readonly name: string;
  readonly key?: string;
  readonly metadata?: Record<string, unknown>;
  readonly payload?: Record<string, unknown>;
}

export interface ProcessedEvent {
  readonly id: string;
  readonly notifications: Stored[];
}

const DUPLICATE_KEY = 11000;

/** What every recipient of one event shares. */
interface EventContext {
  readonly id: string;
  readonly event: IncomingEvent;
  readonly settings: readonly NotificationSetting[];
  readonly templates: ReadonlyMap<string, Template>;
  readonly allowed: (channel: Channel) => boolean;
  readonly data: unknown;
  readonly emitter: string | undefined;
}

/** Recipients of one event served at once. */
const RECIPIENTS_AT_ONCE = 20;

/** Events about a resource changed or gone: `AM/AppointmentUpdated/v1`, `TMM/TherapyDeleted/v1`, … */
const ABORTS_REMINDERS = /(Updated|Deleted)\/v\d+$/;

/** The date reminders count back from: the payload's `startDate` or `date`. */
function eventDate(event: IncomingEvent): Date | undefined {
  const value = event.payload?.startDate ?? event.payload?.date;
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** A notification per (event, recipient): its `_id` is what makes a redelivered event send nothing twice. */
const notificationId = (eventId: string, userId: string) => `${eventId}:${userId}`;

/**
 * One code path for events from HTTP and Kafka: store RECEIVED (the event id is the idempotency
 * key), find its handler (unknown: ERROR and a 400), validate the payload against the event
 * setting's schema, resolve the notification settings per user, send, store one notification per
 * recipient, mark PROCESSED. A redelivered event resends nothing already stored.
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
    if (!setting && !DEFAULT_EVENTS.includes(event.name)) return this.reject(id, 'Unknown event');
    if (setting?.eventSchema) {
      const validate = this.ajv.compile(setting.eventSchema);
      if (!validate(event)) return this.reject(id, `invalid event: ${this.ajv.errorsText(validate.errors)}`);
    }
    // A changed or deleted resource: its pending reminders are stale (an update schedules anew).
    if (event.key && ABORTS_REMINDERS.test(event.name)) await this.reminders.abort(event.key);
    const notifications = await this.notify(id, event, setting?.supportedChannels);
    await this.store.events.updateOne(
      { _id: id },
      { $set: { status: 'PROCESSED', processedAt: this.now() } },
    );
    return { id, notifications };
  }

  private async reject(id: string, message: string): Promise<never> {
    await this.store.events.updateOne({ _id: id }, { $set: { status: 'ERROR', errors: [{ message }] } });
    throw new HttpError(400, message);
  }

  private notificationsOf(eventId: string) {
    return this.store.notifications.find({ 'event.id': eventId }).sort({ _id: 1 }).toArray();
  }

  private async notify(
    id: string,
    event: IncomingEvent,
    supported: Channel[] | undefined,
  ): Promise<Stored[]> {
    const settings = (await this.store.notificationSettings
      .find({ eventName: event.name })
      .toArray()) as unknown as NotificationSetting[];
    const candidates = await this.users.find(audienceOf(settings));
    const already = new Set((await this.notificationsOf(id)).map((n) => n.recipient as string));
    const emitter = typeof event.metadata?.emitter === 'string' ? event.metadata.emitter : undefined;
    const allowed = (c: Channel) => this.activeChannels.includes(c) && (!supported || supported.includes(c));
    const data = { ...event.payload, event };
    const names = [...new Set(settings.map((s) => s.templateName))];
    const templates = new Map(
      (await this.store.templates.find({ name: { $in: names } }).toArray()).map((t) => [t.name as string, t]),
    );
    const context: EventContext = { id, event, settings, templates, allowed, data, emitter };
    const pending = candidates.filter((user) => !already.has(user.id));
    // Recipients in parallel, a bounded number at a time: a 100-recipient event is not 100 round trips in a row.
    for (let start = 0; start < pending.length; start += RECIPIENTS_AT_ONCE) {
      await Promise.all(
        pending.slice(start, start + RECIPIENTS_AT_ONCE).map((user) => this.notifyUser(user, context)),
      );
    }
    return this.notificationsOf(id);
  }

  /** Sends one recipient its messages, schedules its reminders, stores its notification. */
  private async notifyUser(user: User, context: EventContext): Promise<void> {
    const { id, event, settings, templates, allowed, data, emitter } = context;
    const messages: MessageOutcome[] = [];
    const reminders: unknown[] = [];
    for (const { templateName, channels, reminders: schedules } of resolveSettings(
      settings,
      user,
      emitter,
      this.now(),
    )) {
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
      reminders.push(
        ...(await this.remind(
          id,
          event,
          user.id,
          { templateName, channels: channels.filter(allowed), schedules },
          data,
        )),
      );
    }
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

  /** Reminders before the event date (none for a deletion, or without a date). */
  private remind(
    eventId: string,
    event: IncomingEvent,
    recipient: string,
    what: { templateName: string; channels: Channel[]; schedules: string[] },
    data: unknown,
  ) {
    const date = eventDate(event);
    if (!date || what.schedules.length === 0 || /Deleted\/v\d+$/.test(event.name)) return [];
    return this.reminders.schedule({
      eventId,
      eventName: event.name,
      key: event.key,
      recipient,
      ...what,
      eventDate: date,
      data,
    });
  }
}
