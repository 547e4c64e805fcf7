import { readdir } from 'node:fs/promises';
import { extname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Logger } from 'pino';
import { EnvError } from '../kit/index.ts';
import type { AttachmentRef } from './attachments.ts';
import type { Channel } from './config.ts';
import type { MessageOutcome } from './dispatch.ts';
import { durationMs } from './duration.ts';
import type { IncomingEvent } from './handler.ts';
import type { ReminderSummary } from './reminders.ts';
import { byPrecedence, mergeSettings, type NotificationSetting, precedence } from './settings.ts';
import type { Stored } from './store.ts';
import type { Audience, User } from './users.ts';

/** What a custom handler gets as `service` (the reference passes its Fastify instance). */
export interface HandlerService {
  readonly log: Logger;
}

/**
 * A message to send: a template on a channel (the reference's `buildMessages` output), and the
 * reference's (2.3.0) custom `attachments`, files of the file service sent with the template's
 * own when the channel is `email` (ignored on the other channels).
 */
export interface MessageSpec {
  readonly channel: Channel;
  readonly templateName: string;
  readonly attachments?: readonly AttachmentRef[];
}

/** The reference's query of `abortReminders`: only the reminders set by events of these names. */
export interface AbortQuery {
  readonly eventName?: string | readonly string[];
}

/**
 * A reminder to set (the reference's `buildReminders` output); the reminder event's
 * `metadata.reminder` is this object, whatever else it carries (the reference's `triggers`).
 */
export interface ReminderSpec {
  readonly schedule: string;
  readonly expirationDate: string;
  readonly recipients: readonly string[];
  readonly triggers?: readonly string[];
}

/** A notification as the reference's notifications CRUD has it (`failures`: this service stores none). */
export interface Notification {
  readonly event: { id: string; name: string; key?: string };
  readonly recipient: string;
  readonly messages: readonly MessageOutcome[];
  readonly reminders: readonly ReminderSummary[];
  readonly failures?: readonly unknown[];
}

/** The reference's custom handler API (`utils`), on this service's storage and channels. */
export interface HandlerUtils {
  getRecipients(
    service: HandlerService,
    query: { ids?: string[]; groups?: string[]; clusters?: string[]; roles?: string[] },
  ): Promise<User[]>;
  getNotificationSettings(
    service: HandlerService,
    event: IncomingEvent,
    user?: User,
    emitters?: string[],
  ): Promise<NotificationSetting[]>;
  mergeNotificationSettings(service: HandlerService, settings: NotificationSetting[]): NotificationSetting[];
  buildMessages(service: HandlerService, settings: NotificationSetting[]): MessageSpec[];
  sendMessages(
    service: HandlerService,
    event: IncomingEvent,
    user: User,
    messages: MessageSpec[],
  ): Promise<Notification>;
  /** The reference's `sendNotification`: the messages of one notification setting, sent. */
  sendNotification(
    service: HandlerService,
    event: IncomingEvent,
    user: User,
    notification: NotificationSetting,
  ): Promise<Notification>;
  buildReminders(
    service: HandlerService,
    user: User,
    settings: NotificationSetting[],
    eventDateTime: string,
  ): ReminderSpec[];
  setReminders(
    service: HandlerService,
    event: IncomingEvent,
    user: User,
    reminders: ReminderSpec[],
  ): Promise<Notification>;
  abortReminders(
    service: HandlerService,
    event: IncomingEvent,
    user: User,
    query?: AbortQuery,
  ): Promise<Notification[]>;
  mergeNotifications(
    service: HandlerService,
    event: IncomingEvent,
    user: User,
    notifications: Notification[],
  ): Notification;
}

/** The reference's contract: `module.exports = async function handler(service, event, utils)`. */
export type CustomHandler = (
  service: HandlerService,
  event: IncomingEvent & { id: string },
  utils: HandlerUtils,
) => unknown;

/** What the utils need from the processor, for one event. */
export interface HandlerToolkit {
  readonly eventId: string;
  readonly now: () => Date;
  findUsers(audience: Audience): Promise<User[]>;
  settingsOf(eventName: string): Promise<NotificationSetting[]>;
  /** Sends the messages to the user, unless this event's notification of the user has them already. */
  send(event: IncomingEvent, user: User, messages: readonly MessageSpec[]): Promise<MessageOutcome[]>;
  remind(event: IncomingEvent, user: User, reminder: ReminderSpec): Promise<ReminderSummary>;
  /**
   * Aborts the key's active reminders of these recipients (only those set by events of
   * `eventNames`, when given); answers the notifications listing the reminders it aborted, updated.
   */
  abort(key: string, recipients: readonly string[], eventNames?: readonly string[]): Promise<Stored[]>;
  /** Stores (merges into) this event's notification of the user. */
  save(user: User, part: Pick<Notification, 'messages'> | Pick<Notification, 'reminders'>): Promise<Stored>;
}

const MODULE = /\.(c|m)?(j|t)s$/;

/**
 * The handlers of `CUSTOM_HANDLERS_FOLDER`, by file name (what event settings' `handlerName` says):
 * each JavaScript or TypeScript module must export a function (default export or
 * `module.exports`); a module that does not load or exports something else stops the service with
 * an {@link EnvError} naming the file.
 */
export async function loadCustomHandlers(folder: string | undefined): Promise<Map<string, CustomHandler>> {
  const handlers = new Map<string, CustomHandler>();
  if (!folder) return handlers;
  let files: string[];
  try {
    files = (await readdir(folder))
      .filter((file) => MODULE.test(extname(file)) && !file.endsWith('.d.ts'))
      .sort();
  } catch (error) {
    throw new EnvError([
      `CUSTOM_HANDLERS_FOLDER: cannot read the folder ${folder} (${(error as Error).message})`,
    ]);
  }
  const problems: string[] = [];
  for (const file of files) {
    try {
      const loaded = (await import(pathToFileURL(resolve(join(folder, file))).href)) as { default?: unknown };
      if (typeof loaded.default !== 'function') {
        problems.push(
          `CUSTOM_HANDLERS_FOLDER: ${join(folder, file)} must export a function (service, event, utils), exports ${typeof loaded.default === 'undefined' ? `only {${Object.keys(loaded).join(', ')}}` : `a ${typeof loaded.default}`}`,
        );
        continue;
      }
      handlers.set(file, loaded.default as CustomHandler);
    } catch (error) {
      problems.push(
        `CUSTOM_HANDLERS_FOLDER: ${join(folder, file)} does not load (${(error as Error).message})`,
      );
    }
  }
  if (problems.length > 0) throw new EnvError(problems);
  return handlers;
}

/** The utils a custom handler gets for one event. */
export function handlerUtils(kit: HandlerToolkit): HandlerUtils {
  const notification = (
    event: IncomingEvent,
    user: User,
    doc: { readonly [field: string]: unknown },
  ): Notification => ({
    event: { id: kit.eventId, name: event.name, key: event.key },
    recipient: user.id,
    messages: (doc.messages as MessageOutcome[] | undefined) ?? [],
    reminders: (doc.reminders as ReminderSummary[] | undefined) ?? [],
  });
  const stored = (doc: Stored): Notification => ({
    event: doc.event as Notification['event'],
    recipient: doc.recipient as string,
    messages: (doc.messages as MessageOutcome[] | undefined) ?? [],
    reminders: (doc.reminders as ReminderSummary[] | undefined) ?? [],
  });
  // Named, not `this`: a handler may call the functions detached (`const { sendMessages } = utils`).
  const utils: HandlerUtils = {
    // "If multiple filters are passed, for example ids and groups, the function returns all the
    // user having any of the given ids and any of the given groups": any within a filter, every filter.
    async getRecipients(_service, { ids, groups, clusters, roles }) {
      const anyOf = (wanted: readonly string[] | undefined, has: readonly string[]) =>
        !wanted?.length || wanted.some((w) => has.includes(w));
      const users = await kit.findUsers({ recipients: ids, groups, clusters, roles });
      return users.filter(
        (u) =>
          anyOf(ids, [u.id]) &&
          anyOf(groups, u.groups) &&
          anyOf(clusters, u.clusters) &&
          anyOf(roles, u.roles),
      );
    },
    // The settings of the event "and, if provided, to the given user and emitters", "sorted by precedence".
    async getNotificationSettings(_service, event, user, emitters) {
      const settings = byPrecedence(await kit.settingsOf(event.name));
      return settings.filter(
        (s) =>
          (!user || precedence(s, user) >= 0) &&
          (emitters === undefined || !s.emitters?.length || s.emitters.some((e) => emitters.includes(e))),
      );
    },
    mergeNotificationSettings: (_service, settings) => mergeSettings(settings, kit.now()),
    buildMessages(_service, settings) {
      const specs = new Map<string, MessageSpec>();
      for (const { templateName, channels } of settings)
        for (const channel of channels) specs.set(`${templateName}\n${channel}`, { channel, templateName });
      return [...specs.values()];
    },
    async sendMessages(_service, event, user, messages) {
      messages.forEach(checkAttachments);
      // "If the list of messages is empty, no record is stored in the notifications CRUD."
      if (messages.length === 0) return notification(event, user, {});
      const outcomes = await kit.send(event, user, messages);
      return notification(event, user, await kit.save(user, { messages: outcomes }));
    },
    // "takes an event, a user and a notification setting, send all the messages and return the
    // details about the notification sent".
    sendNotification(service, event, user, setting) {
      return utils.sendMessages(service, event, user, utils.buildMessages(service, [setting]));
    },
    buildReminders(_service, user, settings, eventDateTime) {
      const start = Date.parse(eventDateTime);
      const schedules = new Set(settings.flatMap((s) => s.reminders ?? []));
      return [...schedules].flatMap((schedule) => {
        const before = durationMs(schedule);
        if (before === undefined || Number.isNaN(start)) return [];
        return [{ schedule, expirationDate: new Date(start - before).toISOString(), recipients: [user.id] }];
      });
    },
    async setReminders(_service, event, user, reminders) {
      // "If the list of reminders is empty, no record is stored in the notifications CRUD."
      if (reminders.length === 0) return notification(event, user, {});
      const set = [];
      for (const reminder of reminders) set.push(await kit.remind(event, user, reminder));
      return notification(event, user, await kit.save(user, { reminders: set }));
    },
    // "An array of updated notifications": those listing a reminder it aborted, as now stored.
    async abortReminders(_service, event, user, query) {
      // "the event name matches any of the `query.eventName`, if provided": a list, or one name.
      const names = query?.eventName === undefined ? undefined : [query.eventName].flat();
      if (names?.some((name) => typeof name !== 'string'))
        throw new TypeError('abortReminders: query.eventName must be an event name or a list of them');
      if (!event.key) return [];
      return (await kit.abort(event.key, [user.id], names)).map(stored);
    },
    // "If exactly one notification is provided, the exact same notification is returned"; else a
    // new one "with all the messages, reminders and failures from all the given notifications".
    mergeNotifications(_service, event, user, notifications) {
      const [only] = notifications;
      if (notifications.length === 1 && only) return only;
      return {
        event: { id: kit.eventId, name: event.name, key: event.key },
        recipient: user.id,
        messages: notifications.flatMap((n) => n.messages ?? []),
        reminders: notifications.flatMap((n) => n.reminders ?? []),
        failures: notifications.flatMap((n) => n.failures ?? []),
      };
    },
  };
  return utils;
}

/**
 * A handler's message carries custom attachments as the reference's file references (`{file,
 * name?}`); anything else is the handler's bug, named, rather than an email sent without them.
 */
function checkAttachments(message: MessageSpec, index: number): void {
  const { attachments } = message as { attachments?: unknown };
  if (attachments === undefined) return;
  const valid =
    Array.isArray(attachments) &&
    attachments.every(
      (a: unknown) =>
        typeof a === 'object' &&
        a !== null &&
        typeof (a as { file?: unknown }).file === 'string' &&
        (a as { file: string }).file.length > 0 &&
        ['string', 'undefined'].includes(typeof (a as { name?: unknown }).name),
    );
  if (!valid)
    throw new TypeError(
      `sendMessages: messages[${index}].attachments must be a list of {file, name?} (file names of the file service)`,
    );
}
