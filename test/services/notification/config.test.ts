import * as assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EnvError } from '../../../services/kit/index.ts';
import { readConfig, serviceConfigurationJsonSchema } from '../../../services/notification/config.ts';
import { test } from '../../support/suite.ts';

const BASE = { MONGODB_URL: 'mongodb://localhost/notifications', SMTP_URL: 'smtp://localhost:2525' };

function problemsOf(env: Record<string, string>): readonly string[] {
  try {
    readConfig(env);
  } catch (error) {
    if (error instanceof EnvError) return error.problems;
    throw error;
  }
  assert.fail('expected an EnvError');
}

function configFile(content: unknown): string {
  const path = join(mkdtempSync(join(tmpdir(), 'notification-config-')), 'config.json');
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

test('defaults: the reference collection names, email active because SMTP_URL is set', () => {
  const config = readConfig(BASE);
  assert.equal(config.HTTP_PORT, 3000);
  assert.equal(config.USERS_CRUD_NAME, 'users');
  assert.equal(config.NOTIFICATIONS_SETTINGS_CRUD_NAME, 'notifications_settings');
  assert.equal(config.DEFAULT_LOCALE, 'en');
  assert.deepEqual(config.service.activeChannels, ['email']);
  assert.equal(config.service.userFields.id, '_id');
});

test('the *_CRUD_NAME variables rename the collections', () => {
  const config = readConfig({ ...BASE, TEMPLATES_CRUD_NAME: 'tpl', EVENTS_CRUD_NAME: 'evts' });
  assert.equal(config.TEMPLATES_CRUD_NAME, 'tpl');
  assert.equal(config.EVENTS_CRUD_NAME, 'evts');
});

test('a missing or bad variable is named', () => {
  assert.deepEqual(problemsOf({ SMTP_URL: 'smtp://x' }), ['MONGODB_URL: required, not set']);
  assert.match(problemsOf({ ...BASE, SMS_SERVICE_URL: 'ftp://x' })[0] ?? '', /^SMS_SERVICE_URL:/);
  assert.match(problemsOf({ ...BASE, HTTP_PORT: 'eighty' })[0] ?? '', /^HTTP_PORT:/);
  assert.match(problemsOf({ ...BASE, DEFAULT_LOCALE: '!!' })[0] ?? '', /^DEFAULT_LOCALE:/);
});

test('MAIL_SERVICE_URL and SMTP_URL together are refused', () => {
  assert.match(problemsOf({ ...BASE, MAIL_SERVICE_URL: 'http://mail' }).join(), /not both/);
});

test('the Kafka variables come together', () => {
  const problems = problemsOf({ ...BASE, KAFKA_BROKERS: 'localhost:9092' });
  assert.deepEqual(
    problems.map((p) => p.split(':')[0]),
    ['KAFKA_EVENTS_TOPIC_NAME', 'KAFKA_ERRORS_TOPIC_NAME', 'KAFKA_CONSUMER_GROUP'],
  );
});

test('TIMER_SERVICE_URL alone enables reminders: the timer posts back to http://<SERVICE_NAME>, TIMER_CALLBACK_URL overrides it', () => {
  const timer = { ...BASE, TIMER_SERVICE_URL: 'http://timer' };
  assert.equal(readConfig(timer).timerCallbackUrl, 'http://notification-manager');
  assert.equal(readConfig({ ...timer, SERVICE_NAME: 'nm' }).timerCallbackUrl, 'http://nm');
  assert.equal(
    readConfig({ ...timer, SERVICE_NAME: 'nm', TIMER_CALLBACK_URL: 'http://nm.ns:3000' }).timerCallbackUrl,
    'http://nm.ns:3000',
  );
  assert.deepEqual(problemsOf({ ...timer, SERVICE_NAME: 'not a host' }), [
    'SERVICE_NAME: expected a host name (got "not a host")',
  ]);
});

test('no channel service at all: named', () => {
  assert.match(
    problemsOf({ MONGODB_URL: BASE.MONGODB_URL }).join(),
    /at least one channel service is required/,
  );
});

test('the configuration file: active channels, senders, user fields', () => {
  const path = configFile({
    activeChannels: ['email', 'sms'],
    sender: { email: 'noreply@example.com', sms: 'Clinic' },
    userFields: { id: 'fiscalCode', emailAddress: 'mail' },
  });
  const config = readConfig({ ...BASE, SMS_SERVICE_URL: 'http://sms', CONFIGURATION_PATH: path });
  assert.deepEqual(config.service.activeChannels, ['email', 'sms']);
  assert.equal(config.service.sender.email, 'noreply@example.com');
  assert.equal(config.service.userFields.id, 'fiscalCode');
  assert.equal(config.service.userFields.phoneNumber, 'phoneNumber');
});

test('the configuration file: an active channel without its service URL, an unknown channel, bad JSON', () => {
  assert.match(
    problemsOf({ ...BASE, CONFIGURATION_PATH: configFile({ activeChannels: ['email', 'push'] }) }).join(),
    /PUSH_SERVICE_URL: required by the active channel "push"/,
  );
  assert.match(
    problemsOf({ ...BASE, CONFIGURATION_PATH: configFile({ activeChannels: ['fax'] }) }).join(),
    /CONFIGURATION_PATH: activeChannels\.0/,
  );
  assert.match(
    problemsOf({ ...BASE, CONFIGURATION_PATH: configFile('{') }).join(),
    /CONFIGURATION_PATH: cannot read JSON/,
  );
});

test('the configuration file has a JSON Schema', () => {
  const schema = serviceConfigurationJsonSchema() as {
    type: string;
    required: string[];
    properties: Record<string, unknown>;
  };
  assert.equal(schema.type, 'object');
  assert.deepEqual(schema.required, ['activeChannels']);
  assert.ok(schema.properties.userFields);
});

test.run();
