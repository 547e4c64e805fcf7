import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { Hono } from 'hono';
import pino from 'pino';
import { Registry } from 'prom-client';
import { z } from 'zod';
import {
  createServiceApp,
  EnvError,
  envBoolean,
  envPort,
  errorHandler,
  HttpError,
  healthRoutes,
  metricsRoute,
  notFoundHandler,
  observeRequests,
  parseEnv,
  readPackageInfo,
  requestLog,
  serve,
} from '../../../services/kit/index.ts';
import { test } from '../../support/suite.ts';

function capturedLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}

test('errorHandler: HttpError keeps status and details, other errors are 500 with their message; notFound is JSON', async () => {
  const app = new Hono()
    .get('/teapot', () => {
      throw new HttpError(418, 'short and stout', { errors: [{ path: '/a', message: 'bad' }] });
    })
    .get('/boom', () => {
      throw new Error('kaput');
    });
  app.onError(errorHandler);
  app.notFound(notFoundHandler);
  const teapot = await app.request('/teapot');
  assert.equal(teapot.status, 418);
  assert.deepEqual(await teapot.json(), {
    statusCode: 418,
    error: "I'm a Teapot",
    message: 'short and stout',
    errors: [{ path: '/a', message: 'bad' }],
  });
  const boom = await app.request('/boom');
  assert.equal(boom.status, 500);
  assert.deepEqual(await boom.json(), { statusCode: 500, error: 'Internal Server Error', message: 'kaput' });
  const missing = await app.request('/nothing', { method: 'DELETE' });
  assert.deepEqual(await missing.json(), {
    statusCode: 404,
    error: 'Not Found',
    message: 'no route for DELETE /nothing',
  });
  assert.throws(() => new HttpError(200, 'not an error'), /400\.\.599/);
});

test('createServiceApp: any thrown value, not only an Error, answers the JSON 500 with the value as message', async () => {
  const { logger, lines } = capturedLogger();
  const registry = new Registry();
  const app = createServiceApp({ logger, registry, health: healthRoutes({ name: 'svc', version: '1' }) });
  app.use('/guarded/*', async () => {
    throw 42;
  });
  app.get('/string', () => {
    throw 'adapter said no';
  });
  app.get('/rejected-object', async () => Promise.reject({ message: 'from an object', code: 7 }));
  app.get('/plain-object', async () => Promise.reject({ code: 7 }));
  app.get('/null', () => {
    throw null;
  });
  app.get('/guarded/x', (c) => c.text('never'));
  app.get('/http-error', () => {
    throw new HttpError(409, 'taken');
  });
  const cases: Array<[string, number, string]> = [
    ['/string', 500, 'adapter said no'],
    ['/rejected-object', 500, 'from an object'],
    ['/plain-object', 500, '{"code":7}'],
    ['/null', 500, 'null'],
    ['/guarded/x', 500, '42'],
    ['/http-error', 409, 'taken'],
  ];
  // Served over HTTP, as users see it (Node answers an escaped non-Error with an empty 500).
  const server = await serve(app, { hostname: '127.0.0.1', port: 0, handleSignals: false });
  try {
    const request = (path: string) => fetch(`http://127.0.0.1:${server.port}${path}`);
    for (const [path, status, message] of cases) {
      const response = await request(path);
      assert.equal(response.status, status, path);
      assert.match(response.headers.get('content-type') ?? '', /application\/json/, path);
      assert.equal(((await response.json()) as { message: string }).message, message, path);
    }
    const body = await (await request('/string')).json();
    assert.deepEqual(body, { statusCode: 500, error: 'Internal Server Error', message: 'adapter said no' });
    const answered = lines.filter((l) => l.msg === 'request answered' && l.path === '/string');
    assert.deepEqual(
      answered.map((l) => l.status),
      [500, 500],
      'the request logger sees the 500',
    );
    const failed = lines.find((l) => l.msg === 'request failed' && l.reqId === answered[0]!.reqId);
    assert.equal((failed?.err as { type?: string })?.type, 'ThrownValueError');
    const metrics = await (await request('/-/metrics')).text();
    assert.match(metrics, /http_requests_total\{method="GET",route="\/string",status="500"\} 2/);
  } finally {
    await server.close();
  }
});

test('healthRoutes: healthz always 200; ready 503 with status KO when the probe says no or throws', async () => {
  let state: boolean | Error = true;
  const app = healthRoutes({
    name: 'svc',
    version: '1.0.0',
    ready: () => {
      if (state instanceof Error) throw state;
      return state;
    },
  });
  assert.deepEqual(await (await app.request('/-/ready')).json(), {
    name: 'svc',
    version: '1.0.0',
    status: 'OK',
  });
  state = false;
  const notReady = await app.request('/-/ready');
  assert.equal(notReady.status, 503);
  assert.deepEqual(await notReady.json(), { name: 'svc', version: '1.0.0', status: 'KO' });
  state = new Error('store down');
  assert.equal((await app.request('/-/ready')).status, 503);
  assert.equal((await app.request('/-/healthz')).status, 200);
});

test('observeRequests: echoes a plain x-request-id, replaces a forged one, logs one line per request with it', async () => {
  const { logger, lines } = capturedLogger();
  const app = new Hono();
  app.use(observeRequests({ logger, onError: errorHandler }));
  app.get('/hello', (c) => {
    requestLog(c)?.info('inside');
    return c.text(c.get('requestId'));
  });
  const given = await app.request('/hello', { headers: { 'x-request-id': 'abc-123' } });
  assert.equal(given.headers.get('x-request-id'), 'abc-123');
  assert.equal(await given.text(), 'abc-123');
  const forged = await app.request('/hello', { headers: { 'x-request-id': 'x {"level":60}' } });
  const generated = forged.headers.get('x-request-id')!;
  assert.match(generated, /^[0-9a-f-]{36}$/);
  const mine = lines.filter((l) => l.reqId === 'abc-123');
  assert.deepEqual(
    mine.map((l) => l.msg),
    ['inside', 'request answered'],
  );
  assert.equal(mine[1]!.status, 200);
  assert.equal(mine[1]!.method, 'GET');
  assert.ok(lines.some((l) => l.reqId === generated));
});

test('observeRequests: the x-request-id header is on every answer, a Response made by hand or an error too', async () => {
  const { logger } = capturedLogger();
  const app = new Hono();
  app.use(observeRequests({ logger, onError: errorHandler }));
  app.get('/by-hand', () => new Response('raw', { headers: { 'x-extra': '1' } }));
  app.get('/fails', () => {
    throw new HttpError(409, 'taken');
  });
  app.onError(errorHandler);
  const byHand = await app.request('/by-hand', { headers: { 'x-request-id': 'r-1' } });
  assert.equal(byHand.headers.get('x-request-id'), 'r-1');
  assert.equal(byHand.headers.get('x-extra'), '1');
  assert.equal(await byHand.text(), 'raw');
  const fails = await app.request('/fails', { headers: { 'x-request-id': 'r-2' } });
  assert.equal(fails.status, 409);
  assert.equal(fails.headers.get('x-request-id'), 'r-2');
});

test('observeRequests over HTTP: the id on every answer (plain, by hand, error, 404, stream), one line each with the route pattern', async () => {
  const { logger, lines } = capturedLogger();
  const app = createServiceApp({
    logger,
    registry: new Registry(),
    health: healthRoutes({ name: 'svc', version: '1.0.0' }),
  });
  app.get('/items/:id', (c) => c.json({ id: c.req.param('id') }));
  app.get('/by-hand', () => new Response('raw', { headers: { 'x-extra': '1' } }));
  app.get('/own-id', () => new Response('mine', { headers: { 'x-request-id': 'set-by-handler' } }));
  app.get('/stream', () => new Response(new Blob(['a', 'b']).stream()));
  app.get('/fails', () => {
    throw new HttpError(409, 'taken');
  });
  const server = await serve(app, { hostname: '127.0.0.1', port: 0, handleSignals: false });
  try {
    const get = (path: string, requestId?: string) =>
      fetch(`http://127.0.0.1:${server.port}${path}`, {
        headers: requestId === undefined ? {} : { 'x-request-id': requestId },
      });
    const cases: Array<[string, number, string]> = [
      ['/items/7', 200, '{"id":"7"}'],
      ['/by-hand', 200, 'raw'],
      ['/stream', 200, 'ab'],
      ['/fails', 409, '{"statusCode":409,"error":"Conflict","message":"taken"}'],
      ['/nowhere', 404, '{"statusCode":404,"error":"Not Found","message":"no route for GET /nowhere"}'],
    ];
    for (const [index, [path, status, body]] of cases.entries()) {
      const response = await get(path, `id-${index}`);
      assert.equal(response.status, status, path);
      assert.equal(response.headers.get('x-request-id'), `id-${index}`, path);
      assert.equal(await response.text(), body, path);
    }
    const generated = await get('/items/8');
    assert.match(generated.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
    assert.equal((await get('/by-hand')).headers.get('x-extra'), '1');
    // The handler's own header wins over the echo, as any header a handler sets.
    assert.equal((await get('/own-id', 'from-caller')).headers.get('x-request-id'), 'set-by-handler');
    // The lines are written when the logger's batch is; this logger writes at once.
    const first = lines.find((l) => l.reqId === 'id-0')!;
    assert.deepEqual(
      { method: first.method, route: first.route, path: first.path, status: first.status },
      { method: 'GET', route: '/items/:id', path: '/items/7', status: 200 },
    );
    assert.equal(typeof first.ms, 'number');
    assert.equal(lines.find((l) => l.reqId === 'id-3')?.status, 409);
    assert.equal(lines.filter((l) => l.msg === 'request answered').length, cases.length + 3);
  } finally {
    await server.close();
  }
});

test('metrics: counts by method, route pattern and status; /-/metrics serves Prometheus text', async () => {
  const registry = new Registry();
  const app = new Hono();
  const logger = pino({ level: 'silent' });
  app.use(observeRequests({ logger, registry, onError: errorHandler }));
  app.use(observeRequests({ logger, registry, onError: errorHandler })); // a second install on the same registry must not throw
  app.route('/', metricsRoute(registry));
  app.get('/items/:id', (c) => c.text(c.req.param('id')));
  await app.request('/items/1');
  await app.request('/items/2');
  const response = await app.request('/-/metrics');
  assert.match(response.headers.get('content-type') ?? '', /text\/plain/);
  const text = await response.text();
  assert.match(text, /http_requests_total\{method="GET",route="\/items\/:id",status="200"\} 4/);
  assert.match(
    text,
    /http_request_duration_seconds_bucket\{le="0.005",method="GET",route="\/items\/:id",status="200"\}/,
  );
});

test('parseEnv: typed values and defaults; one line per bad variable; secret values hidden', () => {
  const schema = z.object({
    PORT: envPort().default(8080),
    DEBUG: envBoolean().default(false),
    KAFKA_BROKERS: z.string().min(1),
    DB_PASSWORD: z.string().min(12),
  });
  assert.deepEqual(
    parseEnv(schema, { KAFKA_BROKERS: 'k:9092', DEBUG: 'Yes', DB_PASSWORD: 'long-enough-secret' }),
    {
      PORT: 8080,
      DEBUG: true,
      KAFKA_BROKERS: 'k:9092',
      DB_PASSWORD: 'long-enough-secret',
    },
  );
  try {
    parseEnv(schema, { PORT: 'abc', DEBUG: 'maybe', DB_PASSWORD: 'hunter2' });
    assert.fail('expected an EnvError');
  } catch (error) {
    assert.ok(error instanceof EnvError);
    assert.deepEqual(error.problems.slice().sort(), [
      'DB_PASSWORD: Too small: expected string to have >=12 characters (got <hidden>)',
      'DEBUG: expected true, false, 1, 0, yes or no (got "maybe")',
      'KAFKA_BROKERS: required, not set',
      'PORT: expected integer 0..65535 (got "abc")',
    ]);
    assert.doesNotMatch(error.message, /hunter2/);
  }
  assert.throws(
    () => parseEnv(schema, { PORT: '70000', KAFKA_BROKERS: 'k', DB_PASSWORD: 'x'.repeat(12) }),
    /PORT: expected integer 0\.\.65535 \(got "70000"\)/,
  );
});

test('readPackageInfo: nearest package.json at or above a directory; clear errors', () => {
  const root = mkdtempSync(join(tmpdir(), 'kit-pkg-'));
  try {
    writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'outer', version: '2.0.0' }));
    mkdirSync(join(root, 'a', 'b'), { recursive: true });
    assert.deepEqual(readPackageInfo(join(root, 'a', 'b')), { name: 'outer', version: '2.0.0' });
    writeFileSync(join(root, 'a', 'package.json'), JSON.stringify({ name: 'inner' }));
    assert.throws(() => readPackageInfo(join(root, 'a', 'b')), /"name" and "version" must be strings/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('serve: graceful shutdown turns ready 503 during the delay, finishes in-flight requests, then runs hooks in order', async () => {
  let release: () => void = () => {};
  let slowStarted: () => void = () => {};
  const started = new Promise<void>((resolve) => {
    slowStarted = resolve;
  });
  const events: string[] = [];
  const app = createServiceApp({
    logger: pino({ level: 'silent' }),
    registry: new Registry(),
    health: healthRoutes({ name: 'svc', version: '1' }),
  });
  app.get('/slow', async (c) => {
    await new Promise<void>((resolve) => {
      release = resolve;
      slowStarted();
    });
    events.push('slow answered');
    return c.text('done');
  });
  const server = await serve(app, {
    hostname: '127.0.0.1',
    port: 0,
    delayShutdownSeconds: 1,
    handleSignals: false,
    onShutdown: [() => void events.push('hook 1'), async () => void events.push('hook 2')],
  });
  const base = `http://127.0.0.1:${server.port}`;
  assert.equal((await fetch(`${base}/-/ready`)).status, 200);
  const slow = fetch(`${base}/slow`);
  await started;
  const closing = server.close();
  assert.equal(server.draining, true);
  const ready = await fetch(`${base}/-/ready`);
  assert.equal(ready.status, 503);
  assert.equal(((await ready.json()) as { status: string }).status, 'KO');
  assert.equal((await fetch(`${base}/-/healthz`)).status, 200, 'still serving during the delay');
  release();
  assert.equal(await (await slow).text(), 'done');
  await closing;
  assert.deepEqual(events, ['slow answered', 'hook 1', 'hook 2']);
  await assert.rejects(fetch(`${base}/-/healthz`), 'no longer accepting');
  assert.equal(server.close(), closing, 'close is idempotent');
});

test('serve: a taken port rejects; DELAY_SHUTDOWN_SECONDS is validated', async () => {
  const first = await serve(new Hono(), {
    hostname: '127.0.0.1',
    handleSignals: false,
    delayShutdownSeconds: 0,
  });
  await assert.rejects(
    serve(new Hono(), {
      hostname: '127.0.0.1',
      port: first.port,
      handleSignals: false,
      delayShutdownSeconds: 0,
    }),
    /EADDRINUSE/,
  );
  await first.close();
  process.env.DELAY_SHUTDOWN_SECONDS = 'soon';
  try {
    await assert.rejects(
      serve(new Hono(), { hostname: '127.0.0.1', handleSignals: false }),
      /DELAY_SHUTDOWN_SECONDS: expected integer 0\.\.3600 \(got "soon"\)/,
    );
  } finally {
    delete process.env.DELAY_SHUTDOWN_SECONDS;
  }
});

test.run();
