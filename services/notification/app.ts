import type { Hono } from 'hono';
import { type Document, ObjectId } from 'mongodb';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { z } from 'zod';
import { createServiceApp, HttpError, healthRoutes, limitBody, type PackageInfo } from '../kit/index.ts';

import {
  bodyOf,
  EVENT_BODY,
  EVENT_SETTING_BODY,
  NOTIFICATION_SETTING_BODY,
  parsed,
  SAGA_COMMAND_BODY,
  SEND_BODY,
  TEMPLATE_BODY,
} from './bodies.ts';
import type { Deliver } from './channels.ts';
import type { Channel, ServiceConfiguration } from './config.ts';
import { crudRoutes } from './crud-routes.ts';
import { dispatch, failuresOf } from './dispatch.ts';
import type { EventProcessor } from './events.ts';
import { IDEMPOTENCY_HEADER, once } from './idempotency.ts';
import { openApiDocument } from './openapi.ts';
import { notifyFlowManager, sendBodyOf } from './saga.ts';
import type { Collections } from './store.ts';
import { hasMessageFor, inlineTemplate, type RenderMessage } from './templates.ts';
import { userRoutes } from './user-routes.ts';
import type { Users } from './users.ts';

/** Far above any message, template or setting a client sends. */
const MAX_BODY_BYTES = 1024 * 1024;

export interface NotificationAppOptions {
  readonly store: Collections;
  readonly users: Users;
  readonly events: EventProcessor;
  readonly activeChannels: readonly Channel[];
  readonly render: RenderMessage;
  readonly deliver: Deliver;
  readonly ready: () => Promise<boolean>;
  readonly info: PackageInfo;
  readonly logger: Logger;
  readonly registry: Registry;
  readonly userIdHeader: string;
  /** Attachments are refused up front without it. */
  readonly fileServiceUrl?: string;
  readonly groupsHeader: string;
  /** `POST /saga/send`'s metadata paths and events back (the configuration file's `flowManagerConfiguration`). */
  readonly flowManager?: ServiceConfiguration['flowManagerConfiguration'];
  readonly flowManagerCalls: { readonly timeoutMs: number; readonly retries: number };
}

type SendBody = z.output<typeof SEND_BODY>;

/** What makes a notification setting unique (the reference refuses two with the same). */
const SETTING_IDENTITY = ['eventName', 'templateName', 'user', 'group', 'cluster', 'role'] as const;

/** `GET /notifications[/count]` filters: `recipient`, `eventId`, `eventName`, `eventKey`. */
function notificationFilter(query: Record<string, string>): Document {
  const fields = {
    recipient: 'recipient',
    eventId: 'event.id',
    eventName: 'event.name',
    eventKey: 'event.key',
  };
  return Object.fromEntries(
    Object.entries(fields).flatMap(([param, field]) =>
      query[param] === undefined ? [] : [[field, query[param]]],
    ),
  );
}

async function found<T>(value: Promise<T | null>, what: string): Promise<T> {
  const result = await value;
  if (result === null) throw new HttpError(404, `${what} not found`);
  return result;
}

/** The template a `/send` names by `templateId`: an ObjectId or a string `_id`. */
function templateFilter(id: string): Document {
  return ObjectId.isValid(id) && id.length === 24 ? { _id: { $in: [new ObjectId(id), id] } } : { _id: id };
}

export function createNotificationApp(options: NotificationAppOptions): Hono {
  const { store, users, events, activeChannels, render, deliver } = options;
  const app = createServiceApp({
    logger: options.logger,
    registry: options.registry,
    health: healthRoutes({ ...options.info, ready: options.ready }),
    ignoreTrailingSlash: true,
  });

  const document = openApiDocument(options.info);
  app.get('/documentation/json', (c) => c.json(document));
  // Bodies are read whole (c.req.json()): without a bound, one large body is as large in memory.
  app.on(['POST', 'PUT', 'PATCH', 'DELETE'], '*', limitBody(MAX_BODY_BYTES));
  app.route(
    '/',
    userRoutes({
      store,
      users,
      activeChannels,
      userIdHeader: options.userIdHeader,
      groupsHeader: options.groupsHeader,
      checkSetting: (setting) => checkNotificationSetting(setting),
    }),
  );

  /** `/send` and `/saga/send`: the channels checked, the template found, every recipient messaged once. */
  async function send(body: SendBody, idempotencyKey: string | undefined) {
    if (body.emailAttachments?.length && !options.fileServiceUrl) {
      throw new HttpError(400, 'emailAttachments need FILE_SERVICE_URL, which is not set');
    }
    const inactive = body.channels.filter((ch) => !activeChannels.includes(ch));
    if (inactive.length > 0) throw new HttpError(400, `channels not active: ${inactive.join(', ')}`);
    return once(store.sendRequests, idempotencyKey, async () => {
      const template = body.templateId
        ? await found(
            store.templates.findOne(templateFilter(body.templateId)),
            `template "${body.templateId}"`,
          )
        : inlineTemplate(body.messageTitle ?? '', body.messageContent ?? '');
      const outcomes = await dispatch(
        {
          users: await users.find(body),
          channels: body.channels,
          template,
          data: body.data ?? {},
          extras: {
            sender: body.emailSender,
            attachments: body.emailAttachments,
            carbonCopies: body.emailCarbonCopies,
            blindCarbonCopies: body.emailBlindCarbonCopies,
          },
        },
        render,
        deliver,
      );
      return { failures: failuresOf(outcomes) };
    });
  }

  app.post('/send', async (c) =>
    c.json(await send(await bodyOf(c, SEND_BODY), c.req.header(IDEMPOTENCY_HEADER))),
  );

  /**
   * A Flow Manager command: the send it carries, then the success or fail event back to the Flow
   * Manager (fail: the command is invalid, or a delivery failed); 200 with an empty body.
   */
  app.post('/saga/send', async (c) => {
    const command = await bodyOf(c, SAGA_COMMAND_BODY);
    const flow = options.flowManager;
    const report = (succeeded: boolean) =>
      notifyFlowManager(flow, command.key, succeeded, {
        ...options.flowManagerCalls,
        logger: options.logger,
      });
    try {
      // The saga id keys the send: a command the Flow Manager sends again sends nothing twice.
      const { failures } = await send(
        parsed(sendBodyOf(command, flow), SEND_BODY),
        `saga:${command.key}:${command.value.messageLabel}`,
      );
      await report(failures.length === 0);
    } catch (error) {
      await report(false);
      throw error;
    }
    return c.body(null, 200);
  });

  app.post('/notification-events', async (c) => {
    const event = await bodyOf(c, EVENT_BODY);
    const { notifications } = await events.process(event, { type: 'http', path: c.req.path });
    return c.json({ _id: notifications[0]?._id, notifications });
  });

  app.get('/notifications', async (c) =>
    c.json(
      await store.notifications.find(notificationFilter(c.req.query())).sort({ _id: 1 }).limit(200).toArray(),
    ),
  );
  app.get('/notifications/count', async (c) =>
    c.json(await store.notifications.countDocuments(notificationFilter(c.req.query()))),
  );
  app.get('/notifications/:id', async (c) =>
    c.json(await found(store.notifications.findOne({ _id: c.req.param('id') }), 'notification')),
  );

  app.route(
    '/event-settings',
    crudRoutes({
      collection: store.eventSettings,
      schema: EVENT_SETTING_BODY,
      what: 'event settings',
      uniqueField: 'eventName',
      sortBy: 'eventName',
    }),
  );
  app.route(
    '/notification-settings',
    crudRoutes({
      collection: store.notificationSettings,
      schema: NOTIFICATION_SETTING_BODY,
      what: 'notification settings',
      sortBy: 'eventName',
      check: (setting) => checkNotificationSetting(setting),
    }),
  );
  app.route(
    '/templates',
    crudRoutes({
      collection: store.templates,
      schema: TEMPLATE_BODY,
      what: 'templates',
      uniqueField: 'name',
      sortBy: 'name',
    }),
  );
  /**
   * The reference's rules: one setting per event, template and selectors (409); channels active
   * and supported by the event; the template exists and has each channel.
   */
  async function checkNotificationSetting(setting: Record<string, unknown>) {
    const same = Object.fromEntries(
      SETTING_IDENTITY.map((field) => [field, setting[field] ?? { $exists: false }]),
    );
    if (await store.notificationSettings.findOne({ ...same, _id: { $ne: setting._id as string } }))
      throw new HttpError(
        409,
        `notification settings for "${String(setting.eventName)}" with template "${String(setting.templateName)}" and the same user, group, cluster and role already exist`,
      );
    const channels = setting.channels as Channel[];
    const event = await store.eventSettings.findOne({ eventName: setting.eventName });
    const supported = (event?.supportedChannels as Channel[] | undefined) ?? activeChannels;
    const refused = channels.filter((ch) => !activeChannels.includes(ch) || !supported.includes(ch));
    if (refused.length > 0)
      throw new HttpError(
        400,
        `channels not enabled for "${String(setting.eventName)}": ${refused.join(', ')}`,
      );
    const template = await store.templates.findOne({ name: setting.templateName });
    if (!template) throw new HttpError(400, `template "${String(setting.templateName)}" not found`);
    const missing = channels.filter((ch) => !hasMessageFor(template, ch));
    if (missing.length > 0)
      throw new HttpError(400, `template "${template.name}" has no message for: ${missing.join(', ')}`);
  }

  return app;
}
