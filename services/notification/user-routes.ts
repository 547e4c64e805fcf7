import { randomUUID } from 'node:crypto';
import { Hono } from 'hono';
import { z } from 'zod';
import { HttpError } from '../kit/index.ts';
import { bodyOf, NOTIFICATION_SETTING_BODY, PATCH_OWN_SETTINGS_BODY } from './bodies.ts';
import type { Channel } from './config.ts';
import { patchedDocument } from './crud-routes.ts';
import { DEFAULT_EVENTS } from './default-handlers.ts';
import { type NotificationSetting, precedence, targets } from './settings.ts';
import type { Collections, Stored } from './store.ts';
import type { User, Users } from './users.ts';

export interface UserRoutesOptions {
  readonly store: Collections;
  readonly users: Users;
  readonly activeChannels: readonly Channel[];
  readonly userIdHeader: string;
  readonly groupsHeader: string;
  /** The rules of every notification setting (the `/notification-settings` PATCH's). */
  readonly checkSetting: (setting: Record<string, unknown>) => Promise<void>;
}

/** An event as the logged user sees it (`GET /user/events`). */
interface VisibleEvent {
  readonly eventName: string;
  readonly supportedChannels: Channel[];
  readonly enabledChannels: Channel[];
}

/**
 * The logged user's routes (user from the platform headers, platform.md; none: 401): its
 * notification settings, the events it may see with their channels, and its own channel choice.
 */
export function userRoutes({
  store,
  users,
  activeChannels,
  userIdHeader,
  groupsHeader,
  checkSetting,
}: UserRoutesOptions): Hono {
  const app = new Hono();

  /** The caller: its stored record (clusters, roles) with the groups of the header. */
  async function caller(header: (name: string) => string | undefined): Promise<User> {
    const id = header(userIdHeader);
    if (!id) throw new HttpError(401, `no user: the ${userIdHeader} header is missing`);
    const groups = (header(groupsHeader) ?? '')
      .split(',')
      .map((g) => g.trim())
      .filter(Boolean);
    const [stored] = await users.find({ recipients: [id] });
    return {
      id,
      groups,
      clusters: stored?.clusters ?? [],
      roles: stored?.roles ?? [],
      addresses: stored?.addresses ?? {},
      record: stored?.record ?? { _id: id },
    };
  }

  const settingsOf = async (user: User, eventName?: string) => {
    const all = (await store.notificationSettings
      .find(eventName ? { eventName } : {})
      .limit(eventName ? 0 : 1000)
      .toArray()) as unknown as (NotificationSetting & Stored)[];
    return all.filter((s) => targets(s, user)).slice(0, 200);
  };

  async function visibleEvents(user: User): Promise<VisibleEvent[]> {
    const eventSettings = await store.eventSettings.find().toArray();
    const own = await settingsOf(user);
    const byName = new Map(eventSettings.map((s) => [s.eventName as string, s]));
    const names = new Set([...DEFAULT_EVENTS, ...byName.keys()]);
    const visible: VisibleEvent[] = [];
    for (const eventName of names) {
      const setting = byName.get(eventName);
      const groups = (setting?.userGroups as string[] | undefined) ?? [];
      if (groups.length > 0 && !groups.some((g) => user.groups.includes(g))) continue;
      const supported = ((setting?.supportedChannels as Channel[] | undefined) ?? [...activeChannels]).filter(
        (c) => activeChannels.includes(c),
      );
      const enabled = new Set(
        own.filter((s) => s.eventName === eventName && s.rule !== 'IGNORE').flatMap((s) => s.channels),
      );
      visible.push({
        eventName,
        supportedChannels: supported,
        enabledChannels: supported.filter((c) => enabled.has(c)),
      });
    }
    return visible.sort((a, b) => a.eventName.localeCompare(b.eventName));
  }

  app.get('/user-notification-settings', async (c) =>
    c.json(await settingsOf(await caller(c.req.header.bind(c.req)))),
  );

  app.patch('/user-notification-settings/:id', async (c) => {
    const user = await caller(c.req.header.bind(c.req));
    const body = await bodyOf(c, z.unknown());
    const stored = await store.notificationSettings.findOne({ _id: c.req.param('id'), user: user.id });
    if (!stored) throw new HttpError(404, 'notification settings of this user not found');
    // "the notification setting `user` can not be updated through this endpoint … a 400".
    const doc = await patchedDocument(stored, body, NOTIFICATION_SETTING_BODY, async (setting) => {
      if (setting.user !== user.id) throw new HttpError(400, 'the user of a setting cannot be changed');
      await checkSetting(setting);
    });
    await store.notificationSettings.replaceOne({ _id: doc._id, user: user.id }, doc);
    return c.json(doc);
  });

  app.delete('/user-notification-settings/:id', async (c) => {
    const user = await caller(c.req.header.bind(c.req));
    const { deletedCount } = await store.notificationSettings.deleteOne({
      _id: c.req.param('id'),
      user: user.id,
    });
    if (deletedCount === 0) throw new HttpError(404, 'notification settings of this user not found');
    return c.body(null, 204);
  });

  app.get('/user/events', async (c) => c.json(await visibleEvents(await caller(c.req.header.bind(c.req)))));

  app.patch('/user/notification-settings', async (c) => {
    const user = await caller(c.req.header.bind(c.req));
    const { eventName, enabledChannels } = await bodyOf(c, PATCH_OWN_SETTINGS_BODY);
    const event = (await visibleEvents(user)).find((e) => e.eventName === eventName);
    if (!event) throw new HttpError(403, `the event "${eventName}" is not visible to the user`);
    const unsupported = enabledChannels.filter((ch) => !event.supportedChannels.includes(ch));
    if (unsupported.length > 0)
      throw new HttpError(400, `unsupported channels for "${eventName}": ${unsupported.join(', ')}`);
    const { modifiedCount, matchedCount } = await store.notificationSettings.updateMany(
      { eventName, user: user.id },
      { $set: { channels: enabledChannels } },
    );
    if (matchedCount > 0) return c.json({ updated: modifiedCount });
    // None of the user's own yet: one inheriting the template of the highest-precedence setting that reaches the user.
    const inherited = (await settingsOf(user, eventName)).sort(
      (a, b) => precedence(b, user) - precedence(a, user),
    )[0];
    if (!inherited)
      throw new HttpError(400, `no notification settings to take the template of "${eventName}" from`);
    await store.notificationSettings.insertOne({
      _id: randomUUID(),
      eventName,
      templateName: inherited.templateName,
      user: user.id,
      channels: enabledChannels,
      rule: 'SEND',
    });
    return c.json({ updated: 0, created: 1 });
  });

  return app;
}
