import { readFileSync } from 'node:fs';
import * as assert from 'uvu/assert';
import { ConfigError, parseConfig } from '../../../engine/config/index.ts';
import { COMPARISON_OPERATORS } from '../../../engine/filter/ast.ts';
import { resolveSecrets } from '../../../engine/secrets/index.ts';
import { test } from '../../support/suite.ts';
import { EXAMPLES, exampleText } from './fixtures.ts';

const env = { MONGODB_URL: 'mongodb://127.0.0.1:27017' };

for (const name of EXAMPLES) {
  test(`example ${name} is valid and its secrets resolve`, async () => {
    const { config } = parseConfig(exampleText(name), name);
    const secrets = await resolveSecrets(config, { env });
    assert.ok(secrets.persistenceUrl.startsWith('mongodb://'));
    assert.is(secrets.connections.kafka!['bootstrap.servers'], '127.0.0.1:9092');
  });
}

test('single-view: customers -> orders -> items', () => {
  const { config } = parseConfig(exampleText('single-view'));
  assert.equal(Object.keys(config.consumers.config), ['customers', 'orders', 'items']);
  assert.is(config.producer.config.topic, 'customer-views');
  assert.is(config.processor.internalUpdates.config.topic, 'customer-views-internal');
});

test('two-parents: a node has two in-edges', () => {
  const { config } = parseConfig(exampleText('two-parents'));
  assert.ok(config.processor.graph.nodes.some((node) => node.edges.in.length === 2));
});

test('all-operators: every filter form appears', () => {
  const text = exampleText('all-operators');
  for (const key of ['$and', '$or', '$not', '$isArray', '$regexMatch', ...COMPARISON_OPERATORS]) {
    assert.ok(text.includes(`"${key}"`), `${key} missing`);
  }
  assert.ok(/"filter": true/.test(text) && /\bfalse\b/.test(text));
});

const INVALID: Array<[string, string, RegExp]> = [
  ['cycle', 'processor.graph', /cycle orders -> items -> orders/],
  ['dangling-connection', 'consumers.config.orders.connectionName', /must name an entry of connections/],
  ['short-id', 'id', /at least 8 characters/],
];

for (const [name, path, rule] of INVALID) {
  test(`examples/invalid/${name}.json is rejected at ${path}`, () => {
    const text = readFileSync(new URL(`../../../examples/invalid/${name}.json`, import.meta.url), 'utf8');
    try {
      parseConfig(text);
      assert.unreachable('accepted');
    } catch (error) {
      assert.instance(error, ConfigError);
      const issue = (error as ConfigError).issues.find((candidate) => candidate.path === path);
      assert.ok(issue && rule.test(issue.rule), (error as ConfigError).format());
    }
  });
}

test('examples/invalid/unset-env-secret.json validates but its secret does not resolve', async () => {
  const text = readFileSync(
    new URL('../../../examples/invalid/unset-env-secret.json', import.meta.url),
    'utf8',
  );
  const { config } = parseConfig(text);
  const error = await resolveSecrets(config, { env: {} }).catch((e: unknown) => e);
  assert.instance(error, ConfigError);
  assert.equal((error as ConfigError).issues, [
    {
      path: 'processor.persistence.config.url',
      rule: 'environment variable STREAMFOLD_EXAMPLE_UNSET_MONGODB_URL is not set',
    },
  ]);
});

test.run();
