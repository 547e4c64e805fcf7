/**
 * The event processor on a real MongoDB (stand-in), SMTP sink, SMS HTTP sink and file service
 * (serving `invoice.pdf` and `terms.pdf`), with a clock the test sets: what the handler and reminder tests share. `instance()` is one service process; a
 * new one over the same database is a restart.
 */
import { type Db, MongoClient } from 'mongodb';
import pino from 'pino';
import { createDelivery, type Delivery } from '../../../services/notification/channels.ts';
import { readConfig } from '../../../services/notification/config.ts';
import type { CustomHandler } from '../../../services/notification/custom-handlers.ts';
import { EventProcessor } from '../../../services/notification/events.ts';
import {
  BUILT_IN_SCHEDULER,
  type ReminderBackend,
  Reminders,
} from '../../../services/notification/reminders.ts';
import { type Collections, collections, ensureIndexes } from '../../../services/notification/store.ts';
import { createRenderer } from '../../../services/notification/templates.ts';
import { Users } from '../../../services/notification/users.ts';
import { type HttpSink, startHttpSink } from '../../support/http-sink.ts';
import { type MongoFixture, startMongo } from '../../support/mongo.ts';
import { type SmtpSink, startSmtpSink } from '../../support/smtp-sink.ts';

export interface ProcessorFixture {
  readonly db: Db;
  readonly store: Collections;
  readonly smtp: SmtpSink;
  readonly sms: HttpSink;
  /** The file service (`FILE_SERVICE_URL`): `GET /download/invoice.pdf`, `/download/terms.pdf`. */
  readonly files: HttpSink;
  /** The time every instance sees. */
  clock: Date;
  instance(options?: { backend?: ReminderBackend; customHandlers?: ReadonlyMap<string, CustomHandler> }): {
    events: EventProcessor;
    reminders: Reminders;
    /** The built-in scheduler's tick, firing through this instance's processor. */
    tick(): Promise<number>;
  };
  /** The emails received since `from`, each `subject → recipient's local part`, sorted. */
  mailsSince(from: number): string[];
  stop(): Promise<void>;
}

export async function startProcessorFixture(): Promise<ProcessorFixture> {
  const [mongo, smtp, sms, files]: [MongoFixture, SmtpSink, HttpSink, HttpSink] = await Promise.all([
    startMongo(),
    startSmtpSink(),
    startHttpSink(),
    startHttpSink({
      '/download/invoice.pdf': Buffer.from('%PDF-1.4 invoice'),
      '/download/terms.pdf': Buffer.from('%PDF-1.4 terms'),
    }),
  ]);
  const client = await MongoClient.connect(mongo.url);
  const db = client.db(mongo.database);
  const config = readConfig({
    MONGODB_URL: mongo.url,
    MONGODB_DATABASE: mongo.database,
    SMTP_URL: smtp.url,
    SMS_SERVICE_URL: sms.url,
    FILE_SERVICE_URL: files.url,
    CHANNEL_RETRIES: '0',
  });
  const store = collections(db, config);
  await ensureIndexes(store, '_id');
  const delivery: Delivery = createDelivery(config);
  const logger = pino({ level: process.env.TEST_LOG ?? 'silent' });
  const fixture: ProcessorFixture = {
    db,
    store,
    smtp,
    sms,
    files,
    clock: new Date('2026-03-01T08:00:00Z'),
    instance({ backend = BUILT_IN_SCHEDULER, customHandlers } = {}) {
      const now = () => fixture.clock;
      const users = new Users(store.users, config.service.userFields);
      const reminders = new Reminders(store.reminders, store.notifications, backend, logger, now);
      const events = new EventProcessor({
        store,
        users,
        activeChannels: ['email', 'sms'],
        render: createRenderer('en'),
        deliver: delivery.deliver,
        reminders,
        logger,
        now,
        customHandlers,
      });
      return {
        events,
        reminders,
        tick: () => reminders.tick((event) => events.process(event, { type: 'reminder' })),
      };
    },
    mailsSince: (from) =>
      smtp.messages
        .slice(from)
        .map((m) => `${/Subject: (.*)/.exec(m.data)?.[1]} → ${m.to.map((to) => to.split('@')[0]).join(',')}`)
        .sort(),
    async stop() {
      delivery.close();
      await client.close();
      await Promise.all([mongo.stop(), smtp.stop(), sms.stop(), files.stop()]);
    },
  };
  return fixture;
}
