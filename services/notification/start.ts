import { fileURLToPath } from 'node:url';
import { MongoClient } from 'mongodb';
import type { Logger } from 'pino';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { createKafkaBroker } from '../../operators/broker/kafka/index.ts';
import type { Broker } from '../../operators/broker/types.ts';
import { type RunningServer, readPackageInfo, serve } from '../kit/index.ts';
import { createNotificationApp } from './app.ts';
import { createDelivery } from './channels.ts';
import type { NotificationConfig } from './config.ts';
import { loadCustomHandlers } from './custom-handlers.ts';
import { EventProcessor } from './events.ts';
import { type KafkaIntake, startKafkaIntake } from './kafka-intake.ts';
import { BUILT_IN_SCHEDULER, Reminders } from './reminders.ts';
import { collections, ensureIndexes } from './store.ts';
import { createRenderer } from './templates.ts';
import { timerService } from './timer-service.ts';
import { Users } from './users.ts';

/**
 * Serves the notification API until `close()` (or SIGTERM/SIGINT when `handleSignals`). MongoDB
 * may be down at start: the indexes are created when it answers, requests answer 503 meanwhile.
 */
export async function startNotificationService(
  config: NotificationConfig,
  options: {
    logger: Logger;
    handleSignals?: boolean;
    /** The broker of the Kafka intake; default librdkafka on `KAFKA_BROKERS` (tests wrap it to inject faults). */
    kafkaBroker?: Broker;
  },
): Promise<
  RunningServer & {
    readonly kafka?: KafkaIntake;
    /** Settles when the service cannot go on (the Kafka intake failed): it is not ready from then on. */
    readonly failed: Promise<Error>;
  }
> {
  const { logger } = options;
  // Before any connection: a bad handler module stops the service at once.
  const customHandlers = await loadCustomHandlers(config.CUSTOM_HANDLERS_FOLDER);
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
  const reminders = new Reminders(store.reminders, store.notifications, reminderBackend(config), logger);
  // Once, idempotent: a database an earlier version wrote keeps its fired reminders abortable.
  await reminders
    .adoptLegacyStatuses()
    .catch((err: unknown) => logger.warn({ err }, 'reminders of an earlier version not upgraded yet'));
  const events = new EventProcessor({
    store,
    users,
    activeChannels,
    render,
    deliver: delivery.deliver,
    reminders,
    logger,
    customHandlers,
  });
  // With the timer service, reminders come back through POST /notification-events/; else they are ours to fire.
  const stopReminders = config.TIMER_SERVICE_URL
    ? async () => undefined
    : reminders.run(config.REMINDERS_POLL_MS, (event) => events.process(event, { type: 'reminder' }));
  const kafka = startKafka(config, events, logger, registry, options.kafkaBroker);
  // A stalled intake must not look healthy: not ready at once, and the caller exits non-zero.
  let failure: Error | undefined;
  const failed = (kafka?.failed ?? new Promise<never>(() => {})).then((error) => {
    failure = error;
    return error;
  });
  const app = createNotificationApp({
    store,
    users,
    events,
    activeChannels,
    render,
    deliver: delivery.deliver,
    ready: async () => failure === undefined && (await db.command({ ping: 1 }).then(() => true)),
    info: readPackageInfo(fileURLToPath(new URL('.', import.meta.url))),
    logger,
    registry,
    userIdHeader: config.USERID_HEADER_KEY,
    fileServiceUrl: config.FILE_SERVICE_URL,
    groupsHeader: config.GROUPS_HEADER_KEY,
    flowManager: config.service.flowManagerConfiguration,
    flowManagerCalls: { timeoutMs: config.CHANNEL_TIMEOUT_MS, retries: config.CHANNEL_RETRIES },
  });
  const server = await serve(app, {
    port: config.HTTP_PORT,
    logger,
    delayShutdownSeconds: config.DELAY_SHUTDOWN_SECONDS,
    handleSignals: options.handleSignals ?? true,
    onShutdown: [() => kafka?.stop(), stopReminders, () => delivery.close(), () => client.close()],
  });
  return Object.assign(server, { kafka, failed });
}

/** The Kafka intake, when the KAFKA_* variables are set (config.ts requires them together). */
function startKafka(
  config: NotificationConfig,
  events: EventProcessor,
  logger: Logger,
  registry: Registry,
  broker?: Broker,
) {
  const { KAFKA_BROKERS, KAFKA_EVENTS_TOPIC_NAME, KAFKA_ERRORS_TOPIC_NAME, KAFKA_CONSUMER_GROUP } = config;
  if (!KAFKA_BROKERS || !KAFKA_EVENTS_TOPIC_NAME || !KAFKA_ERRORS_TOPIC_NAME || !KAFKA_CONSUMER_GROUP)
    return undefined;
  return startKafkaIntake({
    broker:
      broker ??
      createKafkaBroker({
        properties: { ...config.KAFKA_PROPERTIES, 'bootstrap.servers': KAFKA_BROKERS },
        logger,
        registry,
      }),
    eventsTopic: KAFKA_EVENTS_TOPIC_NAME,
    errorsTopic: KAFKA_ERRORS_TOPIC_NAME,
    groupId: KAFKA_CONSUMER_GROUP,
    events,
    logger,
  });
}

/** The timer service when `TIMER_SERVICE_URL` is set ("To schedule reminders … set the TIMER_SERVICE_URL"), else the built-in scheduler. */
function reminderBackend(config: NotificationConfig) {
  const { TIMER_SERVICE_URL: url } = config;
  if (!url) return BUILT_IN_SCHEDULER;
  return timerService({
    url,
    callbackUrl: config.timerCallbackUrl,
    timeoutMs: config.CHANNEL_TIMEOUT_MS,
    retries: config.CHANNEL_RETRIES,
  });
}
