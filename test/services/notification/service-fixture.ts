/**
 * The whole notification service on a free port, as `npx streamfold service notification` runs
 * it, with a silent logger (`TEST_LOG=debug` to see it), and JSON helpers for its routes; and the
 * data one email notification needs.
 */
import type { Db } from 'mongodb';
import pino, { type Logger } from 'pino';
import { readConfig } from '../../../services/notification/config.ts';
import { startNotificationService } from '../../../services/notification/start.ts';

export type NotificationService = Awaited<ReturnType<typeof startNotificationService>> & {
  readonly base: string;
  post(path: string, body: unknown): Promise<Response>;
  patch(path: string, body: unknown): Promise<Response>;
};

/** `logger`: the service's, instead of the silent one. */
export async function startService(
  env: Record<string, string>,
  logger?: Logger,
): Promise<NotificationService> {
  const server = await startNotificationService(readConfig({ HTTP_PORT: '0', ...env }), {
    logger: logger ?? pino({ level: process.env.TEST_LOG ?? 'silent' }),
    handleSignals: false,
  });
  const base = `http://127.0.0.1:${server.port}`;
  const send = (method: string) => (path: string, body: unknown) =>
    fetch(`${base}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  return Object.assign(server, { base, post: send('POST'), patch: send('PATCH') });
}

/**
 * One email notification set up: the user `ada` (ada@example.com, group `patients`), the template
 * `shipped` (`Order {{data.order}}`), and the setting `s1` sending it to `patients` on `eventName`.
 */
export async function seedEmailNotification(db: Db, eventName: string): Promise<void> {
  await db
    .collection('users')
    .insertOne({ _id: 'ada' as never, emailAddress: 'ada@example.com', groups: ['patients'] });
  await db
    .collection('message_templates')
    .insertOne({ name: 'shipped', emailTitle: 'Shipped', emailMessage: 'Order {{data.order}}' });
  await db.collection('notifications_settings').insertOne({
    _id: 's1' as never,
    eventName,
    templateName: 'shipped',
    group: 'patients',
    channels: ['email'],
  });
}
