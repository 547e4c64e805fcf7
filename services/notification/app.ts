import { randomUUID } from 'node:crypto';
import type { Hono } from 'hono';
import { type Document, MongoServerError, ObjectId } from 'mongodb';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { createServiceApp, HttpError, healthRoutes, type PackageInfo } from '../kit/index.ts';
import { bodyOf, EVENT_BODY, EVENT_SETTING_BODY, NOTIFICATION_SETTING_BODY, SEND_BODY } from './bodies.ts';
import type { Deliver } from './channels.ts';
import type { Channel } from './config.ts';
import { dispatch, failuresOf } from './dispatch.ts';
import type { EventProcessor } from './events.ts';
import type { Collections, Stored } from './store.ts';
import { inlineTemplate, type RenderMessage } from './templates.ts';
import { userRoutes } from './user-routes.ts';
import type { Users } from './users.ts';

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
  readonly groupsHeader: string;
}

const DUPLICATE_KEY = 11000;

async function insertUnique(collection: Collections['eventSettings'], doc: Stored, what: string) {
  try {
    await collection.insertOne(doc);
  } catch (error) {
    if (error instanceof MongoServerError && error.code === DUPLICATE_KEY)
      throw new HttpError(409, `${what} already exists`);
    throw error;
  }
}

async function found<T>(value: Promise<T | null>, what: string): Promise<T> {
  const result = await value;
  if (result === null) throw new HttpError(404, `${what} not found`);
  return result;
}

async function deleted(collection: Collections['eventSettings'], id: string, what: string) {
  const { deletedCount } = await collection.deleteOne({ _id: id });
  if (deletedCount === 0) throw new HttpError(404, `${what} not found`);
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
  });

  app.route(
    '/',
    userRoutes({
      store,
      users,
      activeChannels,
      userIdHeader: options.userIdHeader,
      groupsHeader: options.groupsHeader,
    }),
  );

  app.post('/send', async (c) => {
    const body = await bodyOf(c, SEND_BODY);
    const inactive = body.channels.filter((ch) => !activeChannels.includes(ch));
    if (inactive.length > 0) throw new HttpError(400, `channels not active: ${inactive.join(', ')}`);
    const template = body.templateId
      ? await found(store.templates.findOne(templateFilter(body.templateId)), `template "${body.templateId}"`)
      : inlineTemplate(body.messageTitle ?? '', body.messageContent ?? '');
    const outcomes = await dispatch(
      {
        users: await users.find(body),
        channels: body.channels,
        template,
        data: body.data ?? {},
        extras: {
          sender: body.emailSender,
          carbonCopies: body.emailCarbonCopies,
          blindCarbonCopies: body.emailBlindCarbonCopies,
        },
      },
      render,
      deliver,
    );
    return c.json({ failures: failuresOf(outcomes) });
  });

  app.post('/notification-events/', async (c) => {
    const event = await bodyOf(c, EVENT_BODY);
    const { notifications } = await events.process(event, { type: 'http', path: c.req.path });
    return c.json({ _id: notifications[0]?._id, notifications });
  });

  app.get('/notifications', async (c) =>
    c.json(await store.notifications.find().sort({ _id: 1 }).limit(200).toArray()),
  );
  app.get('/notifications/:id', async (c) =>
    c.json(await found(store.notifications.findOne({ _id: c.req.param('id') }), 'notification')),
  );

  app.get('/event-settings/', async (c) =>
    c.json(await store.eventSettings.find().sort({ eventName: 1 }).toArray()),
  );
  app.post('/event-settings/', async (c) => {
    const body = await bodyOf(c, EVENT_SETTING_BODY);
    const doc = { _id: randomUUID(), ...body };
    await insertUnique(store.eventSettings, doc, `event settings for "${body.eventName}"`);
    return c.json({ _id: doc._id });
  });
  app.patch('/event-settings/:id', async (c) => {
    const body = await bodyOf(c, EVENT_SETTING_BODY.partial());
    try {
      return c.json(
        await found(
          store.eventSettings.findOneAndUpdate(
            { _id: c.req.param('id') },
            { $set: body },
            { returnDocument: 'after' },
          ),
          'event settings',
        ),
      );
    } catch (error) {
      if (error instanceof MongoServerError && error.code === DUPLICATE_KEY)
        throw new HttpError(409, `event settings for "${body.eventName}" already exist`);
      throw error;
    }
  });
  app.delete('/event-settings/:id', async (c) => {
    await deleted(store.eventSettings, c.req.param('id'), 'event settings');
    return c.body(null, 204);
  });

  app.get('/notification-settings', async (c) =>
    c.json(await store.notificationSettings.find().sort({ _id: 1 }).limit(200).toArray()),
  );
  app.post('/notification-settings', async (c) => {
    const body = await bodyOf(c, NOTIFICATION_SETTING_BODY);
    const doc = { _id: randomUUID(), ...body };
    await store.notificationSettings.insertOne(doc);
    return c.json({ _id: doc._id });
  });
  app.get('/notification-settings/:id', async (c) =>
    c.json(
      await found(store.notificationSettings.findOne({ _id: c.req.param('id') }), 'notification settings'),
    ),
  );
  app.patch('/notification-settings/:id', async (c) => {
    const body = await bodyOf(c, NOTIFICATION_SETTING_BODY.partial());
    return c.json(
      await found(
        store.notificationSettings.findOneAndUpdate(
          { _id: c.req.param('id') },
          { $set: body },
          { returnDocument: 'after' },
        ),
        'notification settings',
      ),
    );
  });
  app.delete('/notification-settings/:id', async (c) => {
    await deleted(store.notificationSettings, c.req.param('id'), 'notification settings');
    return c.body(null, 204);
  });
  return app;
}
