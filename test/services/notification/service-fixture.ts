/**
 * The whole notification service on a free port, as `npx streamfold service notification` runs
 * it, with a silent logger (`TEST_LOG=debug` to see it), and JSON helpers for its routes.
 */
import pino from 'pino';
import { readConfig } from '../../../services/notification/config.ts';
import { startNotificationService } from '../../../services/notification/start.ts';

export type NotificationService = Awaited<ReturnType<typeof startNotificationService>> & {
  readonly base: string;
  post(path: string, body: unknown): Promise<Response>;
  patch(path: string, body: unknown): Promise<Response>;
};

export async function startService(env: Record<string, string>): Promise<NotificationService> {
  const server = await startNotificationService(readConfig({ HTTP_PORT: '0', ...env }), {
    logger: pino({ level: process.env.TEST_LOG ?? 'silent' }),
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
