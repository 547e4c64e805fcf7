import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import * as assert from 'uvu/assert';
import { configSchema } from '../../../engine/config/index.ts';
import { configJsonSchema } from '../../../engine/config/json-schema.ts';
import { test } from '../../support/suite.ts';
import { EXAMPLES, edited, exampleText, type Sample } from './fixtures.ts';

// ajv-formats is CommonJS: under NodeNext its default import is the module object.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

const committed = JSON.parse(
  readFileSync(new URL('../../../engine/config/config.schema.json', import.meta.url), 'utf8'),
);

const ajv = new Ajv({ strict: true, allErrors: true });
addFormats(ajv);
const validate = ajv.compile(committed);

test('the committed config.schema.json is current (regenerate: streamfold schema > engine/config/config.schema.json)', () => {
  assert.equal(committed, configJsonSchema());
});

test('the schema is draft-07', () => {
  assert.is(committed.$schema, 'http://json-schema.org/draft-07/schema#');
});

type Edit = (c: Sample) => void;

const VALID: Array<[string, unknown]> = [
  ...EXAMPLES.map((name): [string, unknown] => [`example ${name}`, JSON.parse(exampleText(name))]),
  [
    'every default omitted',
    edited((c) => {
      delete c.server;
      delete c.processor.mode;
      delete c.processor.internalUpdates.config.consumer;
      delete c.processor.graph.edges[0].filter;
      delete c.consumers.config.orders.commitIntervalMs;
    }),
  ],
  [
    'secret references',
    edited(
      (c) =>
        (c.processor.persistence.config.url = { type: 'file', path: '/s', key: 'url', encoding: 'base64' }),
    ),
  ],
  [
    'control plane with nulls',
    edited((c) => (c.controlPlane = { grpcAddress: 'cp:1', resumeAfterMs: null })),
  ],
  ['boundary numbers', edited((c) => (c.server = { ip: '10.0.0.1', port: 65535, apiPrefix: '/' }))],
];

const INVALID: Array<[string, Edit]> = [
  ['id of 7 characters', (c) => (c.id = 'abcdefg')],
  ['id of 17 characters', (c) => (c.id = 'abcdefghijklmnopq')],
  ['id with a bad first character', (c) => (c.id = '_abcdefgh')],
  ['missing producer', (c) => delete c.producer],
  ['unknown root property', (c) => (c.extras = {})],
  ['consumers type', (c) => (c.consumers.type = 'pulsar')],
  ['persistence type', (c) => (c.processor.persistence.type = 'postgres')],
  ['negative commitIntervalMs', (c) => (c.consumers.config.orders.commitIntervalMs = -1)],
  ['fractional compressionWindowMs', (c) => (c.processor.internalUpdates.config.compressionWindowMs = 0.5)],
  ['port 65536', (c) => (c.server.port = 65536)],
  ['ip 1.2.3', (c) => (c.server.ip = '1.2.3')],
  ['apiPrefix trailing slash', (c) => (c.server.apiPrefix = '/api/')],
  ['mode', (c) => (c.processor.mode = 'fast')],
  ['numeric secret', (c) => (c.connections.kafka.config['bootstrap.servers'] = 9092)],
  ['env secret without key', (c) => (c.processor.persistence.config.url = { type: 'env' })],
  ['secret with unknown type', (c) => (c.processor.persistence.config.url = { type: 'vault', key: 'k' })],
  [
    'secret with unknown encoding',
    (c) => (c.processor.persistence.config.url = { type: 'env', key: 'k', encoding: 'hex' }),
  ],
  ['controlPlane without grpcAddress', (c) => (c.controlPlane = { feedbackInterval: 1 })],
  [
    'unknown filter operator',
    (c) => (c.processor.graph.edges[0].filter = { $equals: [{ foreign: ['a'] }, 1] }),
  ],
  [
    'two filter keys',
    (c) =>
      (c.processor.graph.edges[0].filter = { $eq: [{ foreign: ['a'] }, 1], $ne: [{ foreign: ['a'] }, 1] }),
  ],
  [
    'comparison of three items',
    (c) => (c.processor.graph.edges[0].filter = { $eq: [{ foreign: ['a'] }, 1, 2] }),
  ],
  ['comparison of one item', (c) => (c.processor.graph.edges[0].filter = { $eq: [{ foreign: ['a'] }] })],
  ['negative path segment', (c) => (c.processor.graph.edges[0].filter = { $eq: [{ foreign: [-1] }, 1] })],
  ['mixed array value', (c) => (c.processor.graph.edges[0].filter = { $in: [{ foreign: ['a'] }, [1, 'a']] })],
  [
    'nested bad filter',
    (c) => (c.processor.graph.edges[0].filter = { $and: [{ $not: { $isArray: { local: ['a'] } } }] }),
  ],
  [
    'regexMatch without regex',
    (c) => (c.processor.graph.edges[0].filter = { $regexMatch: { input: { foreign: ['a'] } } }),
  ],
  ['node edges missing out', (c) => delete c.processor.graph.nodes[0].edges.out],
];

for (const [name, sample] of VALID) {
  test(`zod and the JSON Schema both accept: ${name}`, () => {
    assert.ok(configSchema.safeParse(sample).success, `zod rejected ${name}`);
    assert.ok(validate(sample), `JSON Schema rejected ${name}: ${ajv.errorsText(validate.errors)}`);
  });
}

for (const [name, edit] of INVALID) {
  test(`zod and the JSON Schema both reject: ${name}`, () => {
    const sample = edited(edit);
    assert.not.ok(configSchema.safeParse(sample).success, `zod accepted ${name}`);
    assert.not.ok(validate(sample), `JSON Schema accepted ${name}`);
  });
}

test.run();
