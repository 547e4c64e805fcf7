import * as assert from 'uvu/assert';
import { ConfigError, parseConfig } from '../../../engine/config/index.ts';
import { readFileKey, resolveSecret, resolveSecrets, SecretError } from '../../../engine/secrets/index.ts';
import { test } from '../../support/suite.ts';
import { edited } from '../config/fixtures.ts';

const files: Record<string, string> = {
  '/s/plain': 'p@ss\n',
  '/s/plain-b64': 'cEBzcw==\n',
  '/s/creds.json': '{"user": "app", "password": "p@ss", "port": 5432, "nested": {"a": 1}, "empty": ""}',
  '/s/creds.env': '# comment\nexport USER=app\nPASSWORD="p@ss"\n\nTOKEN=\'dG9r\'\nPASSWORD=second\n',
  '/s/empty': '\n',
  '/s/array.json': '{ "a": ',
};

async function readFile(path: string): Promise<string> {
  if (path in files) return files[path]!;
  throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
}

const resolve = (secret: Parameters<typeof resolveSecret>[0], env: Record<string, string> = {}) =>
  resolveSecret(secret, 'a.b', env, readFile);

async function failure(promise: Promise<unknown>): Promise<SecretError> {
  const error = await promise.then(
    () => assert.unreachable('resolved'),
    (e: unknown) => e,
  );
  assert.instance(error, SecretError);
  return error as SecretError;
}

test('plain, env and base64 env secrets', async () => {
  assert.is(await resolve('literal'), 'literal');
  assert.is(await resolve({ type: 'env', key: 'URL' }, { URL: 'mongodb://x' }), 'mongodb://x');
  assert.is(await resolve({ type: 'env', key: 'B', encoding: 'base64' }, { B: 'aGVsbG8=' }), 'hello');
  assert.is(await resolve({ type: 'env', key: 'B', encoding: 'base64' }, { B: 'aGVsbG8' }), 'hello');
});

test('file secrets: whole file, JSON key, dotenv key, base64', async () => {
  assert.is(await resolve({ type: 'file', path: '/s/plain' }), 'p@ss');
  assert.is(await resolve({ type: 'file', path: '/s/plain-b64', encoding: 'base64' }), 'p@ss');
  assert.is(await resolve({ type: 'file', path: '/s/creds.json', key: 'password' }), 'p@ss');
  assert.is(await resolve({ type: 'file', path: '/s/creds.json', key: 'port' }), '5432');
  assert.is(await resolve({ type: 'file', path: '/s/creds.env', key: 'USER' }), 'app');
  assert.is(await resolve({ type: 'file', path: '/s/creds.env', key: 'PASSWORD' }), 'second');
  assert.is(await resolve({ type: 'file', path: '/s/creds.env', key: 'TOKEN', encoding: 'base64' }), 'tok');
});

const FAILURES: Array<[string, Parameters<typeof resolveSecret>[0], Record<string, string>, RegExp]> = [
  [
    'unset variable',
    { type: 'env', key: 'MONGODB_URL' },
    {},
    /^environment variable MONGODB_URL is not set$/,
  ],
  ['empty variable', { type: 'env', key: 'X' }, { X: '' }, /environment variable X is empty/],
  [
    'a variable named like an Object.prototype member',
    { type: 'env', key: 'constructor' },
    {},
    /^environment variable constructor is not set$/,
  ],
  ['bad base64', { type: 'env', key: 'X', encoding: 'base64' }, { X: 'not base64!' }, /is not valid base64/],
  ['missing file', { type: 'file', path: '/s/none' }, {}, /file \/s\/none does not exist/],
  ['empty file', { type: 'file', path: '/s/empty' }, {}, /file \/s\/empty is empty/],
  ['missing JSON key', { type: 'file', path: '/s/creds.json', key: 'token' }, {}, /has no key token/],
  [
    'non-scalar JSON key',
    { type: 'file', path: '/s/creds.json', key: 'nested' },
    {},
    /must be a string, number or boolean/,
  ],
  ['empty JSON key', { type: 'file', path: '/s/creds.json', key: 'empty' }, {}, /is empty/],
  ['broken JSON file', { type: 'file', path: '/s/array.json', key: 'a' }, {}, /is not valid JSON/],
  ['missing dotenv key', { type: 'file', path: '/s/creds.env', key: 'HOST' }, {}, /has no key HOST/],
];

for (const [name, secret, env, reason] of FAILURES) {
  test(`error: ${name}`, async () => {
    const error = await failure(resolve(secret, env));
    assert.is(error.path, 'a.b');
    assert.match(error.reason, reason);
    assert.ok(error.message.startsWith('a.b: '));
    assert.not.ok(error.message.includes('p@ss'));
  });
}

test('readFileKey: JSON object files and dotenv files', () => {
  assert.is(readFileKey('  {"k": true}', 'k'), 'true');
  assert.is(readFileKey('k=v=w', 'k'), 'v=w');
  assert.is(readFileKey('K=1\r\nk=2\r\n', 'k'), '2');
  assert.is(readFileKey('other=1', 'k'), undefined);
  assert.throws(() => readFileKey('{"k": 1', 'k'), /not valid JSON/);
});

test('resolveSecrets gives client properties per part, without the named fields', async () => {
  const { config } = parseConfig(
    JSON.stringify(
      edited((c) => {
        c.consumers.config.orders['sasl.password'] = { type: 'env', key: 'ORDERS_PASSWORD' };
        c.processor.internalUpdates.config.consumer = { commitIntervalMs: 10, 'group.id': 'internal' };
        c.processor.internalUpdates.config.producer = { 'linger.ms': '5' };
        c.processor.persistence.config.url = { type: 'file', path: '/s/creds.json', key: 'password' };
      }),
    ),
  );
  const secrets = await resolveSecrets(config, { env: { ORDERS_PASSWORD: 'op' }, readFile });
  assert.equal(secrets.consumers.orders, { 'group.id': 'single-view-orders', 'sasl.password': 'op' });
  assert.equal(secrets.consumers.items, { 'group.id': 'single-view-items' });
  assert.equal(secrets.producer, { 'compression.type': 'lz4' });
  assert.equal(secrets.internalConsumer, { 'group.id': 'internal' });
  assert.equal(secrets.internalProducer, { 'linger.ms': '5' });
  assert.is(secrets.connections.kafka!['bootstrap.servers'], '127.0.0.1:9092');
  assert.is(secrets.persistenceUrl, 'p@ss');
});

test('resolveSecrets collects every failure with its config path', async () => {
  const { config } = parseConfig(
    JSON.stringify(
      edited((c) => {
        c.connections.kafka.config['sasl.password'] = { type: 'env', key: 'KAFKA_PASSWORD' };
        c.consumers.config.orders['ssl.key.password'] = { type: 'file', path: '/s/none' };
        c.processor.persistence.config.url = { type: 'env', key: 'MONGODB_URL' };
      }),
    ),
  );
  const error = await resolveSecrets(config, { env: {}, readFile }).catch((e: unknown) => e);
  assert.instance(error, ConfigError);
  assert.equal((error as ConfigError).issues.map((issue) => issue.path).sort(), [
    'connections.kafka.config["sasl.password"]',
    'consumers.config.orders["ssl.key.password"]',
    'processor.persistence.config.url',
  ]);
});

test('resolveSecrets reads real environment and files by default', async () => {
  process.env.STREAMFOLD_TEST_SECRET = 'from-env';
  assert.is(await resolveSecret({ type: 'env', key: 'STREAMFOLD_TEST_SECRET' }, 'x'), 'from-env');
  const url = new URL('../../../examples/single-view/config.json', import.meta.url);
  assert.is(await resolveSecret({ type: 'file', path: url.pathname, key: 'id' }, 'x'), 'singleView01');
});

test.run();
