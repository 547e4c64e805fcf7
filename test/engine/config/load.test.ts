import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { ConfigError, loadConfig, parseConfig } from '../../../engine/config/index.ts';
import { test } from '../../support/suite.ts';
import { thrown } from '../../support/thrown.ts';
import { edited, exampleText } from './fixtures.ts';

function errorOf(run: () => unknown): ConfigError {
  return thrown(ConfigError, run);
}

const MALFORMED: Array<[string, string, RegExp]> = [
  ['{\n  "id": "abc",\n  "x": }\n', 'line 3, column 8', /expected a value/],
  ['{\n  "id": 1,\n}', 'line 3, column 1', /double-quoted property name/],
  ['{"a": [1 2]}', 'line 1, column 10', /',' or '\]'/],
  ['', 'line 1, column 1', /found end of input/],
  ['{"a": "x', 'line 1, column 9', /closing quote/],
  ['{"a": 1} x', 'line 1, column 10', /expected end of input/],
  ["{'a': 1}", 'line 1, column 2', /double-quoted/],
  ['{"a": "\\q"}', 'line 1, column 8', /invalid escape/],
  ['{"a": 01}', 'line 1, column 8', /',' or '\}'/],
];

for (const [text, where, reason] of MALFORMED) {
  test(`malformed JSON ${JSON.stringify(text)} reports ${where}`, () => {
    const error = errorOf(() => parseConfig(text, 'c.json'));
    assert.is(error.issues.length, 1);
    assert.is(error.issues[0]!.path, '(root)');
    assert.ok(error.issues[0]!.rule.includes(`malformed JSON at ${where}`), error.issues[0]!.rule);
    assert.match(error.issues[0]!.rule, reason);
    assert.is(error.source, 'c.json');
  });
}

test('malformed JSON messages never quote the text (it may hold a credential)', () => {
  const error = errorOf(() => parseConfig('{"password": "hunter2" "x": }'));
  assert.not.ok(error.message.includes('hunter2'));
});

test('a byte order mark is accepted', () => {
  assert.is(parseConfig(`\uFEFF${exampleText('single-view')}`).config.id, 'singleView01');
});

test('secret values are redacted in messages, other values shown', () => {
  const config = edited((c) => {
    c.connections.kafka.config['sasl.password'] = 12345;
    c.connections.kafka.config['sasl.username'] = { type: 'plain', value: 'hunter2' };
    c.consumers.config.orders['ssl.key.password'] = { type: 'env', key: 'K', extra: 'hunter2' };
    c.processor.internalUpdates.config.producer = 'hunter2';
    c.producer.config = 'hunter2';
    c.processor.persistence.config = 'mongodb://admin:hunter2@db';
    c.server.port = 'eighty';
  });
  const error = errorOf(() => parseConfig(JSON.stringify(config)));
  const text = `${error.message}\n${error.format()}`;
  assert.not.ok(text.includes('hunter2'), text);
  assert.not.ok(text.includes('12345'), text);
  assert.ok(text.includes('connections.kafka.config["sasl.password"]: must be a Secret'), text);
  assert.ok(text.includes('(<redacted>)'), text);
  assert.ok(text.includes('processor.internalUpdates.config.producer: must be an object (<redacted>)'), text);
  assert.ok(text.includes('server.port: must be a number ("eighty")'), text);
});

test('a client property named like an Object.prototype member gets a config error, not a crash', () => {
  const config = edited((c) => (c.consumers.config.orders.constructor = 42));
  const error = errorOf(() => parseConfig(JSON.stringify(config)));
  assert.ok(
    error.issues.some((i) => i.path === 'consumers.config.orders.constructor'),
    JSON.stringify(error.issues),
  );
});

test('"__proto__" keys are rejected with their path (a JavaScript object cannot hold them)', () => {
  const text = exampleText('single-view').replace(
    '"orders": { "topic"',
    '"__proto__": { "x": 1 }, "orders": { "topic"',
  );
  const error = errorOf(() => parseConfig(text));
  assert.equal(error.issues, [
    { path: 'consumers.config.__proto__', rule: '"__proto__" is reserved: choose another name' },
  ]);
});

test('a misplaced property is reported without its value', () => {
  const config = edited((c) => (c.processor.persistence.config.password = 'hunter2'));
  const error = errorOf(() => parseConfig(JSON.stringify(config)));
  assert.equal(error.issues, [{ path: 'processor.persistence.config.password', rule: 'unknown property' }]);
});

test('format() prints one line per issue as path: rule (value)', () => {
  const error = new ConfigError([
    { path: 'id', rule: 'must be at least 8 characters long', value: 'abc' },
    { path: 'processor.graph', rule: 'cycle a -> a' },
    { path: 'x', rule: 'r', value: 'y'.repeat(200) },
  ]);
  const lines = error.format().split('\n');
  assert.is(lines[0], 'id: must be at least 8 characters long ("abc")');
  assert.is(lines[1], 'processor.graph: cycle a -> a');
  assert.ok(lines[2]!.length < 100 && lines[2]!.endsWith('...)'));
});

test('loadConfig reads a file and names it in errors', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'streamfold-load-'));
  try {
    const good = join(dir, 'good.json');
    writeFileSync(good, exampleText('single-view'));
    assert.is((await loadConfig(good)).config.id, 'singleView01');
    const missing = join(dir, 'missing.json');
    const error = (await loadConfig(missing).catch((e: unknown) => e)) as ConfigError;
    assert.instance(error, ConfigError);
    assert.match(error.issues[0]!.rule, /file not found/);
    assert.is(error.source, missing);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
