import * as assert from 'uvu/assert';
import { parseConfig } from '../../../engine/config/index.ts';
import { test } from '../../support/suite.ts';
import { baseConfig, edited, issuesOf, type Sample } from './fixtures.ts';

const parse = (config: unknown) => parseConfig(JSON.stringify(config)).config;

test('defaults are applied', () => {
  const config = edited((c) => {
    delete c.server;
    delete c.processor.mode;
    delete c.processor.internalUpdates.config.consumer;
    c.controlPlane = { grpcAddress: '127.0.0.1:50051' };
  });
  const parsed = parse(config);
  assert.equal(parsed.server, { ip: '0.0.0.0', port: 3000, apiPrefix: '/' });
  assert.is(parsed.processor.mode, 'read-delete');
  assert.is(parsed.consumers.config.customers!.commitIntervalMs, 500);
  assert.is(parsed.processor.internalUpdates.config.compressionWindowMs, 250);
  assert.equal(parsed.processor.internalUpdates.config.consumer, { commitIntervalMs: 0 });
  assert.equal(parsed.processor.internalUpdates.config.producer, {});
  assert.equal(parsed.controlPlane, {
    grpcAddress: '127.0.0.1:50051',
    feedbackInterval: 3000,
    resumeAfterMs: null,
  });
});

test('internal consumer object given without commitIntervalMs defaults it to 500', () => {
  const parsed = parse(
    edited((c) => (c.processor.internalUpdates.config.consumer = { 'fetch.min.bytes': '1' })),
  );
  assert.equal(parsed.processor.internalUpdates.config.consumer, {
    commitIntervalMs: 500,
    'fetch.min.bytes': '1',
  });
});

test('partial server settings keep the other defaults; edge filter defaults to true', () => {
  const parsed = parse(
    edited((c) => {
      c.server = { port: 0 };
      delete c.processor.graph.edges[0].filter;
    }),
  );
  assert.equal(parsed.server, { ip: '0.0.0.0', port: 0, apiPrefix: '/' });
  assert.is(parsed.processor.graph.edges[0]!.filter, true);
});

test('boundary values are accepted', () => {
  const parsed = parse(
    edited((c) => {
      c.id = 'abcdefghijklmnop';
      c.server = { ip: '255.255.255.255', port: 65535, apiPrefix: '/a/b.c~d-e_f' };
      c.consumers.config.orders.commitIntervalMs = 0;
      c.controlPlane = { grpcAddress: 'cp:1', resumeAfterMs: null };
    }),
  );
  assert.is(parsed.id.length, 16);
  assert.is(parsed.server.port, 65535);
});

/** Each sample breaks one rule; the issue must name the path and the rule. */
const FAILING: Array<[string, (c: Sample) => void, string, RegExp]> = [
  ['id of 7 characters', (c) => (c.id = 'abcdefg'), 'id', /at least 8/],
  ['id of 17 characters', (c) => (c.id = 'abcdefghijklmnopq'), 'id', /at most 16/],
  ['id starting with a digit', (c) => (c.id = '1abcdefgh'), 'id', /pattern/],
  ['id with a dash', (c) => (c.id = 'abcd-efgh'), 'id', /pattern/],
  ['missing id', (c) => delete c.id, 'id', /is required/],
  ['unknown root property', (c) => (c.extra = 1), 'extra', /unknown property/],
  ['consumers type not kafka', (c) => (c.consumers.type = 'pulsar'), 'consumers.type', /must be "kafka"/],
  [
    'connection type not kafka',
    (c) => (c.connections.kafka.type = 'rabbitmq'),
    'connections.kafka.type',
    /"kafka"/,
  ],
  ['producer type not kafka', (c) => (c.producer.type = 'kinesis'), 'producer.type', /"kafka"/],
  [
    'persistence type not mongodb',
    (c) => (c.processor.persistence.type = 'postgres'),
    'processor.persistence.type',
    /"mongodb"/,
  ],
  [
    'missing topic',
    (c) => delete c.consumers.config.orders.topic,
    'consumers.config.orders.topic',
    /is required/,
  ],
  [
    'negative commitIntervalMs',
    (c) => (c.consumers.config.orders.commitIntervalMs = -1),
    'consumers.config.orders.commitIntervalMs',
    />= 0/,
  ],
  [
    'fractional commitIntervalMs',
    (c) => (c.consumers.config.orders.commitIntervalMs = 1.5),
    'consumers.config.orders.commitIntervalMs',
    /integer/,
  ],
  [
    'string compressionWindowMs',
    (c) => (c.processor.internalUpdates.config.compressionWindowMs = '250'),
    'processor.internalUpdates.config.compressionWindowMs',
    /must be a number/,
  ],
  ['port above uint16', (c) => (c.server.port = 65536), 'server.port', /<= 65535/],
  ['negative port', (c) => (c.server.port = -1), 'server.port', />= 0/],
  ['ip not ipv4', (c) => (c.server.ip = '::1'), 'server.ip', /IPv4/],
  ['ip out of range', (c) => (c.server.ip = '256.0.0.1'), 'server.ip', /IPv4/],
  ['apiPrefix without slash', (c) => (c.server.apiPrefix = 'api'), 'server.apiPrefix', /pattern/],
  ['apiPrefix with trailing slash', (c) => (c.server.apiPrefix = '/api/'), 'server.apiPrefix', /pattern/],
  [
    'unknown output mode',
    (c) => (c.processor.mode = 'fast'),
    'processor.mode',
    /one of "operation-forwarding"/,
  ],
  [
    'controlPlane without grpcAddress',
    (c) => (c.controlPlane = {}),
    'controlPlane.grpcAddress',
    /is required/,
  ],
  [
    'negative feedbackInterval',
    (c) => (c.controlPlane = { grpcAddress: 'x:1', feedbackInterval: -5 }),
    'controlPlane.feedbackInterval',
    />= 0/,
  ],
  [
    'string resumeAfterMs',
    (c) => (c.controlPlane = { grpcAddress: 'x:1', resumeAfterMs: 'soon' }),
    'controlPlane.resumeAfterMs',
    /must be a number/,
  ],
  ['edges not an array', (c) => (c.processor.graph.edges = {}), 'processor.graph.edges', /must be an array/],
  [
    'node without edges',
    (c) => delete c.processor.graph.nodes[0].edges,
    'processor.graph.nodes[0].edges',
    /required/,
  ],
  [
    'secret of a wrong type',
    (c) => (c.connections.kafka.config['bootstrap.servers'] = 9092),
    'connections.kafka.config["bootstrap.servers"]',
    /must be a Secret/,
  ],
  [
    'env secret without key',
    (c) => (c.processor.persistence.config.url = { type: 'env' }),
    'processor.persistence.config.url.key',
    /is required/,
  ],
  [
    'file secret without path',
    (c) => (c.processor.persistence.config.url = { type: 'file', key: 'url' }),
    'processor.persistence.config.url.path',
    /is required/,
  ],
  [
    'unknown secret type',
    (c) => (c.processor.persistence.config.url = { type: 'vault', key: 'x' }),
    'processor.persistence.config.url.type',
    /one of "env", "file"/,
  ],
  [
    'secret encoding other than base64',
    (c) => (c.processor.persistence.config.url = { type: 'env', key: 'X', encoding: 'hex' }),
    'processor.persistence.config.url.encoding',
    /"base64"/,
  ],
  [
    'consumer property that is not a Secret',
    (c) => (c.consumers.config.orders['fetch.max.bytes'] = 1024),
    'consumers.config.orders["fetch.max.bytes"]',
    /must be a Secret/,
  ],
];

for (const [name, edit, path, rule] of FAILING) {
  test(`rejects ${name}`, () => {
    const issues = issuesOf(edited(edit));
    const issue = issues.find((candidate) => candidate.path === path);
    assert.ok(issue, `no issue at ${path}: ${JSON.stringify(issues)}`);
    assert.match(issue!.rule, rule);
  });
}

test('every problem is reported, not only the first', () => {
  const issues = issuesOf(
    edited((c) => {
      c.id = 'short';
      c.server.port = 70000;
      c.processor.mode = 'x';
    }),
  );
  assert.equal(issues.map((issue) => issue.path).sort(), ['id', 'processor.mode', 'server.port']);
});

test('an empty document and a non-object document are rejected', () => {
  assert.ok(issuesOf({}).some((issue) => issue.path === 'consumers' && issue.rule === 'is required'));
  assert.equal(
    issuesOf([]).map((issue) => issue.path),
    ['(root)'],
  );
  assert.equal(issuesOf(null)[0]!.rule, 'must be an object');
});

test('the base config is valid', () => {
  assert.is(parse(baseConfig()).id, 'singleView01');
});

test.run();
