import type { Collection, Db, Document } from 'mongodb';
import type { NotificationConfig } from './config.ts';
import type { SendRequest } from './idempotency.ts';
import type { Reminder } from './reminders.ts';

/** A notification per (event, recipient): its `_id` is what makes a redelivered event send nothing twice. */
export const notificationId = (eventId: string, userId: string) => `${eventId}:${userId}`;

/** Every document this service stores has a string `_id` (the API's `:id`). */
export interface Stored extends Document {
  _id: string;
}

export interface Collections {
  readonly users: Collection<Document>;
  readonly templates: Collection<Stored>;
  readonly events: Collection<Stored>;
  readonly eventSettings: Collection<Stored>;
  readonly notifications: Collection<Stored>;
  readonly notificationSettings: Collection<Stored>;
  readonly reminders: Collection<Reminder>;
  readonly sendRequests: Collection<SendRequest>;
}

/** The six collections, named by the reference's `*_CRUD_NAME` variables. */
export function collections(db: Db, config: NotificationConfig): Collections {
  return {
    users: db.collection(config.USERS_CRUD_NAME),
    templates: db.collection<Stored>(config.TEMPLATES_CRUD_NAME),
    events: db.collection<Stored>(config.EVENTS_CRUD_NAME),
    eventSettings: db.collection<Stored>(config.EVENTS_SETTINGS_CRUD_NAME),
    notifications: db.collection<Stored>(config.NOTIFICATIONS_CRUD_NAME),
    notificationSettings: db.collection<Stored>(config.NOTIFICATIONS_SETTINGS_CRUD_NAME),
    reminders: db.collection<Reminder>(config.REMINDERS_CRUD_NAME),
    sendRequests: db.collection<SendRequest>(config.SEND_REQUESTS_CRUD_NAME),
  };
}

/** The indexes the queries of this service use; unique ones enforce the API's 409s and idempotency. */
export async function ensureIndexes(store: Collections, userIdField: string): Promise<void> {
  await Promise.all([
    store.eventSettings.createIndex({ eventName: 1 }, { unique: true }),
    // One setting per event, template and selectors (missing selectors index as null).
    store.notificationSettings.createIndex(
      { eventName: 1, templateName: 1, user: 1, group: 1, cluster: 1, role: 1 },
      { unique: true },
    ),
    store.notifications.createIndex({ 'event.id': 1 }),
    store.events.createIndex({ name: 1, status: 1 }),
    store.templates.createIndex({ name: 1 }, { unique: true }),
    store.reminders.createIndex({ status: 1, expirationDate: 1 }),
    store.reminders.createIndex({ key: 1, status: 1, recipient: 1 }),
    ...(userIdField === '_id' ? [] : [store.users.createIndex({ [userIdField]: 1 })]),
  ]);
}
