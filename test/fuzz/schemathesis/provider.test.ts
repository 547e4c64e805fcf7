/**
 * Schemathesis against the provider API (`streamfold service provider`) with its real
 * dependencies: the MongoDB stand-in, the broker (changes topic) and our authentication service
 * (with its Redis and a fake Auth0), asked for every request's session. Stateful: providers
 * created by POST are read, patched and deleted through the links Schemathesis infers.
 */
import { randomBytes } from 'node:crypto';
import { type KafkaFixture, startKafka } from '../../support/kafka.ts';
import { type MongoFixture, startMongo } from '../../support/mongo.ts';
import { test } from '../../support/suite.ts';
import { type AuthStack, startAuthStack } from './auth-stack.ts';
import { checkService, type RunningService, startStreamfold } from './harness.ts';

let auth: AuthStack;
let mongo: MongoFixture;
let kafka: KafkaFixture;
let provider: RunningService;

test.before(async () => {
  [auth, mongo, kafka] = await Promise.all([
    startAuthStack(),
    startMongo(),
    startKafka({ topics: { 'provider-changes': 1 } }),
  ]);
  provider = await startStreamfold(['service', 'provider'], {
    MONGODB_URL: mongo.url,
    PROVIDERS_DATABASE: mongo.database,
    PROVIDERS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    AUTH_SERVICE_URL: auth.service.base,
    AUTH_CLIENT_TYPE: 'web',
    PROVIDERS_CHANGES_TOPIC: kafka.topic('provider-changes'),
    KAFKA_BROKERS: kafka.brokers,
    KAFKA_PROPERTIES: JSON.stringify(kafka.properties),
  });
});

test.after(async () => {
  await provider?.stop();
  await Promise.all([auth?.stop(), mongo?.stop(), kafka?.stop()]);
});

test('provider: every generated request passes every check', async () => {
  await checkService(provider, 'service', ['--header', `Cookie: ${await auth.login()}`]);
});

test.run();
