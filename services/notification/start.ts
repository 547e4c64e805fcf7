import { fileURLToPath } from 'node:url';
import { MongoClient } from 'mongodb';
import type { Logger } from 'pino';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { type RunningServer, readPackageInfo, serve } from '../kit/index.ts';
import { createNotificationApp } from './app.ts';
import { createDelivery } from './channels.ts';
import type { NotificationConfig } from './config.ts';
import { EventProcessor } from './events.ts';
import { collections, ensureIndexes } from './store.ts';
import { createRenderer } from './templates.ts';
import { Users } from './users.ts';

/**
 * Serves the notification API until `close()` (or SIGTERM/SIGINT when `handleSignals`). MongoDB
 * may be down at start: the indexes are created when it answers, requests answer 503 meanwhile.
 */
export async function startNotificationService(
  config: NotificationConfig,
  options: { logger: Logger; handleSignals?: boolean },
): Promise<RunningServer> {
  const { logger } = options;
  const client = new MongoClient(config.MONGODB_URL, { serverSelectionTimeoutMS: config.MONGODB_TIMEOUT_MS });
  const db = client.db(config.MONGODB_DATABASE);
  const store = collections(db, config);
  await ensureIndexes(store, config.service.userFields.id).catch((err: unknown) =>
    logger.warn({ err }, 'notification indexes not created yet'),
  );
  const delivery = createDelivery(config);
  const render = createRenderer(config.DEFAULT_LOCALE);
  const users = new Users(store.users, config.service.userFields);
  const activeChannels = config.service.activeChannels;
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'streamfold_' });
  const app = createNotificationApp({
    store,
    users,
    events: new EventProcessor(store, users, activeChannels, render, delivery.deliver),
    activeChannels,
    render,
    deliver: delivery.deliver,
    ready: () => db.command({ ping: 1 }).then(() => true),
    info: readPackageInfo(fileURLToPath(new URL('.', import.meta.url))),
    logger,
    registry,
  });
  return serve(app, {
    port: config.HTTP_PORT,
    logger,
    delayShutdownSeconds: config.DELAY_SHUTDOWN_SECONDS,
    handleSignals: options.handleSignals ?? true,
    onShutdown: [() => delivery.close(), () => client.close()],
  });
}
