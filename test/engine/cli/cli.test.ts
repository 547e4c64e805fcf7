import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as assert from 'uvu/assert';
import { test } from '../../support/suite.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));

function cli(args: string[], env: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, ['bin/streamfold.js', ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', ...env },
    timeout: 30_000,
  });
  assert.not.ok(/^\s+at /m.test(result.stderr), `stack trace printed:\n${result.stderr}`);
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const MONGODB_URL = 'mongodb://127.0.0.1:27017';

/** `run --embedded` on `examples/<name>`: its output messages, parsed, and its stderr. */
function runExample(name: string) {
  const { code, stdout, stderr } = cli([
    'run',
    `examples/${name}/config.json`,
    '--embedded',
    '--input',
    `examples/${name}/events.jsonl`,
    '--output',
    '-',
  ]);
  assert.is(code, 0, stderr);
  const lines = stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  return { lines, stderr };
}

test('validate accepts every example with a one-line summary', () => {
  for (const name of ['single-view', 'two-parents', 'all-operators', 'tenant-providers']) {
    const { code, stdout } = cli(['validate', `examples/${name}/config.json`], { MONGODB_URL });
    assert.is(code, 0, name);
    assert.is(stdout.trim().split('\n').length, 1);
    assert.match(stdout, /valid, id \w+, \d+ nodes/);
  }
});

test('validate prints the cartesian warning and still exits 0', () => {
  const { code, stderr } = cli(['validate', 'examples/all-operators/config.json']);
  assert.is(code, 0);
  assert.match(stderr, /warning: processor.graph.edges\[6\].filter: true links every parent record/);
});

const INVALID: Array<[string, string]> = [
  ['cycle', 'processor.graph: cycle orders -> items -> orders'],
  [
    'dangling-connection',
    'consumers.config.orders.connectionName: must name an entry of connections ("kafka-eu")',
  ],
  ['short-id', 'id: must be at least 8 characters long ("single1")'],
  [
    'unset-env-secret',
    'processor.persistence.config.url: environment variable STREAMFOLD_EXAMPLE_UNSET_MONGODB_URL is not set',
  ],
];

for (const [name, line] of INVALID) {
  test(`validate examples/invalid/${name}.json exits 1 naming the path`, () => {
    const { code, stdout, stderr } = cli(['validate', `examples/invalid/${name}.json`]);
    assert.is(code, 1);
    assert.is(stdout, '');
    assert.ok(stderr.includes(line), stderr);
  });
}

test('validate --skip-secrets does not resolve secrets', () => {
  const { code, stdout } = cli(['validate', '--skip-secrets', 'examples/invalid/unset-env-secret.json']);
  assert.is(code, 0);
  assert.match(stdout, /secrets not checked/);
});

test('validate reports a missing file and malformed JSON without a stack trace', () => {
  const missing = cli(['validate', 'examples/none.json']);
  assert.is(missing.code, 1);
  assert.match(missing.stderr, /\(root\): examples\/none.json: file not found/);
  const dir = mkdtempSync(join(tmpdir(), 'streamfold-cli-'));
  const file = join(dir, 'bad.json');
  writeFileSync(file, '{\n  "id": "abc",\n  "x": }\n');
  const malformed = cli(['validate', file]);
  rmSync(dir, { recursive: true, force: true });
  assert.is(malformed.code, 1);
  assert.match(malformed.stderr, /\(root\): malformed JSON at line 3, column 8/);
  const notConfig = cli(['validate', 'tsconfig.json']);
  assert.is(notConfig.code, 1);
  assert.match(notConfig.stderr, /compilerOptions: unknown property/);
});

test('schema prints the draft-07 JSON Schema', () => {
  const { code, stdout } = cli(['schema']);
  assert.is(code, 0);
  const schema = JSON.parse(stdout);
  assert.is(schema.$schema, 'http://json-schema.org/draft-07/schema#');
  assert.ok(schema.properties.processor);
});

test('explain prints nodes, heads and edge sentences', () => {
  const { code, stdout } = cli(['explain', 'examples/single-view/config.json']);
  assert.is(code, 0);
  assert.ok(stdout.includes('customers: customers, orders, items'), stdout);
  assert.ok(stdout.includes('customers.id = orders.customerId'), stdout);
  assert.ok(stdout.includes('down: items where items.orderId = <orders.id>'), stdout);
  const invalid = cli(['explain', 'examples/invalid/cycle.json']);
  assert.is(invalid.code, 1);
  assert.match(invalid.stderr, /cycle/);
});

test('run --embedded processes the bundled sample and prints aggregated output', () => {
  const { lines, stderr } = runExample('single-view');
  assert.ok(lines.length >= 2);
  const last = new Map(lines.map((l) => [JSON.stringify(l.key), l.value]));
  const ada = last.get('{"id":1}');
  assert.is(ada.op, 'r');
  assert.equal(
    ada.after.dependencies.orders.map((o: { value: { id: number; status: string } }) => [
      o.value.id,
      o.value.status,
    ]),
    [[100, 'shipped']],
  );
  assert.equal(
    ada.after.dependencies.orders[0].dependencies.items.map((i: { value: { id: number } }) => i.value.id),
    [1000],
    'the deleted item 1001 is gone',
  );
  assert.match(stderr, /14 input records -> \d+ output messages in \d+\.\d\d s\n/);
  assert.not.match(
    stderr,
    /records\/s/,
    'no rate: a 1 s run of 14 records mostly waits out compression windows',
  );
});

test('run: bad input lines and missing options are reported, without a stack', () => {
  const dir = mkdtempSync(join(tmpdir(), 'streamfold-cli-'));
  try {
    const input = join(dir, 'in.jsonl');
    writeFileSync(input, '{"topic":"customers","key":{"id":1},"value":null}\n{"topic":"nope","key":{}}\n');
    const bad = cli(['run', 'examples/single-view/config.json', '--embedded', '--input', input]);
    assert.is(bad.code, 1);
    assert.match(bad.stderr, /in\.jsonl:2: topic "nope" is not consumed by this config/);
    assert.is(cli(['run', 'examples/single-view/config.json', '--embedded']).code, 2);
    assert.is(cli(['run', 'examples/invalid/short-id.json', '--embedded', '--input', input]).code, 1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('run in Kafka mode fails fast with a clear message when the broker is unreachable', () => {
  const { code, stderr } = cli(['run', 'examples/single-view/config.json']);
  assert.is(code, 1);
  assert.match(stderr, /could not connect to Kafka at 127\.0\.0\.1:9092/);
});

test('--help everywhere; usage errors exit 2', () => {
  const help = cli(['--help']);
  assert.is(help.code, 0);
  for (const name of ['validate', 'schema', 'explain', 'run', 'refresh']) {
    assert.ok(help.stdout.includes(name));
    const sub = cli([name, '--help']);
    assert.is(sub.code, 0, name);
    assert.match(sub.stdout, new RegExp(`Usage: streamfold ${name}`));
  }
  assert.is(cli([]).code, 2);
  const unknown = cli(['frobnicate']);
  assert.is(unknown.code, 2);
  assert.match(unknown.stderr, /unknown command "frobnicate"/);
  const flag = cli(['validate', '--bogus', 'x.json']);
  assert.is(flag.code, 2);
  assert.match(flag.stderr, /Usage: streamfold validate/);
  assert.is(cli(['validate']).code, 2);
  assert.is(cli(['schema', 'extra']).code, 2);
});

test('service: an unknown name is a usage error listing the services, exit 2', () => {
  const { code, stderr } = cli(['service', 'no-such-service']);
  assert.is(code, 2);
  assert.match(stderr, /streamfold service: unknown service "no-such-service" \(services: /);
  assert.match(stderr, /Usage: streamfold service <name> \[--print-config-schema\]/);
  assert.is(cli(['service']).code, 2, 'the name is required');
});

test("run --embedded joins tenants with the provider API's change events (examples/tenant-providers)", () => {
  const { lines } = runExample('tenant-providers');
  const last = new Map(lines.map((l) => [l.key.tenantId, l.value.after]));
  const providerIds = (tenantId: string) =>
    last
      .get(tenantId)
      .dependencies.providers.map((p: { value: { providerId: string } }) => p.value.providerId);
  assert.equal(providerIds('acme'), ['gitlab-main'], 'the deleted vault provider is gone');
  assert.equal(providerIds('globex'), ['github']);
});

test('service: a flag the service does not take is a usage error naming the ones it takes, exit 2', () => {
  const bogus = cli(['service', 'provider', '--bogus']);
  assert.is(bogus.code, 2);
  assert.match(bogus.stderr, /service provider does not take --bogus \(flags: --rotate-keys\)/);
  assert.is(cli(['service', 'provider', '--rotate-keys=yes']).code, 2, 'the flag takes no value');
});

test('service provider: a bad environment names each variable, never the key, exit 1', () => {
  const key = 'c2hvcnQtYnV0LXNlY3JldA==';
  const { code, stderr } = cli(['service', 'provider', '--rotate-keys'], {
    MONGODB_URL: 'mongodb://127.0.0.1:1',
    AUTH_SERVICE_URL: 'http://127.0.0.1:1',
    PROVIDERS_ENCRYPTION_KEY: key,
  });
  assert.is(code, 1);
  assert.match(stderr, /PROVIDERS_ENCRYPTION_KEY: key 1 of 1: expected 32 bytes in base64 \(value hidden\)/);
  assert.not.ok(stderr.includes(key));
  const missing = cli(['service', 'provider']);
  assert.is(missing.code, 1);
  for (const name of ['MONGODB_URL', 'PROVIDERS_ENCRYPTION_KEY', 'AUTH_SERVICE_URL']) {
    assert.match(missing.stderr, new RegExp(`${name}: required, not set`));
  }
});

test.run();
