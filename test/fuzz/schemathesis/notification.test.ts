/**
 * Schemathesis against the notification service (`streamfold service notification`) with its
 * real dependencies: the MongoDB stand-in, the broker (events and errors topics), an SMTP sink
 * and an SMS service sink. The `/user/...` routes get a logged user by the platform's header.
 */
import { type HttpSink, startHttpSink } from '../../support/http-sink.ts';
import { type KafkaFixture, startKafka } from '../../support/kafka.ts';
import { type MongoFixture, startMongo } from '../../support/mongo.ts';
import { type SmtpSink, startSmtpSink } from '../../support/smtp-sink.ts';
import { test } from '../../support/suite.ts';
import { checkService, type RunningService, startStreamfold } from './harness.ts';

let mongo: MongoFixture;
let kafka: KafkaFixture;
let smtp: SmtpSink;
let sms: HttpSink;
let service: RunningService;

test.before(async () => {
  [mongo, kafka, smtp, sms] = await Promise.all([
    startMongo(),
    startKafka({ topics: { events: 1, errors: 1 } }),
    startSmtpSink(),
    startHttpSink(),
  ]);
  service = await startStreamfold(['service', 'notification'], {
    MONGODB_URL: mongo.url,
    MONGODB_DATABASE: mongo.database,
    SMTP_URL: smtp.url,
    SMS_SERVICE_URL: sms.url,
    KAFKA_BROKERS: kafka.brokers,
    KAFKA_PROPERTIES: JSON.stringify(kafka.properties),
    KAFKA_EVENTS_TOPIC_NAME: kafka.topic('events'),
    KAFKA_ERRORS_TOPIC_NAME: kafka.topic('errors'),
    KAFKA_CONSUMER_GROUP: 'fuzz-notification',
  });
});

test.after(async () => {
  await service?.stop();
  await Promise.all([mongo?.stop(), kafka?.stop(), smtp?.stop(), sms?.stop()]);
});

test('notification: every generated request passes every check', async () => {
  await checkService(service, 'service', ['--header', 'miauserid: fuzz-user']);
});

test.run();
