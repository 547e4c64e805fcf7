import * as assert from 'node:assert/strict';
import { pino } from 'pino';
import { type AccessFields, accessLineWriter } from '../../../services/kit/access-line.ts';
import { test } from '../../support/suite.ts';

function captured(options: pino.LoggerOptions) {
  const lines: string[] = [];
  const logger = pino(options, { write: (line: string) => lines.push(line) });
  return { logger, lines };
}

const fields: AccessFields = {
  reqId: '0b4f1c3d-3c8f-4d8a-9f5e-c1b0f6d2aaaa',
  method: 'GET',
  route: '/users/:userId',
  path: '/users/auth0%7Cada',
  status: 200,
  ms: 0.4,
};

// What pino itself writes for the same fields, with the time of both lines made equal.
function pinoLine(options: pino.LoggerOptions, entry: AccessFields): string {
  const { logger, lines } = captured(options);
  if (entry.status >= 500) logger.error(entry, 'request answered');
  else logger.info(entry, 'request answered');
  return lines.join('');
}
const sameTime = (line: string) => line.replace(/"time":(\d+|"[^"]*")/, '"time":0');

const plainLoggers: Record<string, pino.LoggerOptions> = {
  'pino defaults': {},
  'the kit service logger': { base: { service: 'auth' } },
  'a custom message key and ISO time': { messageKey: 'message', timestamp: pino.stdTimeFunctions.isoTime },
  'level labels, no time, CRLF': {
    formatters: { level: (label) => ({ level: label }) },
    timestamp: false,
    crlf: true,
  },
  'a serializer of another field': { serializers: { user: () => 'hidden' } },
};

test('access line: byte for byte what pino writes, for plain loggers, 2xx at info and 5xx at error', () => {
  const tricky = { ...fields, path: '/a"b\\c\u0001d/é/日本', route: '*' };
  for (const [name, options] of Object.entries(plainLoggers)) {
    for (const entry of [fields, { ...fields, status: 503, ms: 12 }, tricky]) {
      const { logger, lines } = captured(options);
      accessLineWriter(logger)(entry);
      assert.equal(lines.length, 1, name);
      assert.equal(sameTime(lines[0]!), sameTime(pinoLine(options, entry)), name);
    }
  }
});

test('access line: bindings of a child logger; the level is read at each line', () => {
  const { logger, lines } = captured({ base: { service: 'auth' } });
  const child = logger.child({ instance: 'b' });
  const write = accessLineWriter(child);
  write(fields);
  assert.match(lines[0]!, /^\{"level":30,"time":\d+,"service":"auth","instance":"b","reqId":/);
  child.level = 'warn';
  write(fields);
  write({ ...fields, status: 500 });
  assert.equal(lines.length, 2, 'the 200 is below warn, the 500 is not');
  assert.match(lines[1]!, /^\{"level":50,/);
  child.level = 'silent';
  write({ ...fields, status: 500 });
  assert.equal(lines.length, 2);
});

test('access line: a logger that transforms its lines gets the plain pino call (redaction, mixin, serializers, hooks...)', () => {
  const transforming: Record<string, [pino.LoggerOptions, (line: Record<string, unknown>) => void]> = {
    redaction: [{ redact: ['path'] }, (line) => assert.equal(line.path, '[Redacted]')],
    'wildcard redaction': [{ redact: ['*.x'] }, (line) => assert.equal(line.path, fields.path)],
    mixin: [{ mixin: () => ({ zone: 'eu' }) }, (line) => assert.equal(line.zone, 'eu')],
    'a serializer of path': [
      { serializers: { path: () => '/hidden' } },
      (line) => assert.equal(line.path, '/hidden'),
    ],
    'formatters.log': [
      { formatters: { log: (o) => ({ ...o, extra: 1 }) } },
      (line) => assert.equal(line.extra, 1),
    ],
    'a logMethod hook': [
      {
        hooks: {
          logMethod(_args, method) {
            method.apply(this, ['hooked']);
          },
        },
      },
      (line) => assert.deepEqual([line.msg, line.path], ['hooked', undefined]),
    ],
    nestedKey: [
      { nestedKey: 'payload' },
      (line) => assert.equal((line.payload as AccessFields).path, fields.path),
    ],
    'a message prefix': [
      { msgPrefix: '[auth] ' },
      (line) => assert.equal(line.msg, '[auth] request answered'),
    ],
  };
  for (const [name, [options, check]] of Object.entries(transforming)) {
    const { logger, lines } = captured(options);
    accessLineWriter(logger)(fields);
    assert.equal(sameTime(lines.join('')), sameTime(pinoLine(options, fields)), name);
    assert.equal(lines.length, 1, name);
    check(JSON.parse(lines[0]!));
  }
});

test.run();
