/** What Node's HTTP parser rejects is answered with the platform's JSON error body (kit `serve`). */
import * as assert from 'node:assert/strict';
import { connect } from 'node:net';
import { Hono } from 'hono';
import { type RunningServer, serve } from '../../../services/kit/index.ts';
import { test } from '../../support/suite.ts';

let server: RunningServer;
test.before(async () => {
  const app = new Hono();
  app.get('/', (c) => c.text('ok'));
  server = await serve(app, { hostname: '127.0.0.1', handleSignals: false });
});
test.after(() => server?.close());

function rawAnswer(request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, '127.0.0.1');
    let answer = '';
    socket.setTimeout(5000, () => socket.destroy(new Error('no answer')));
    socket.on('data', (chunk) => (answer += chunk));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
    socket.end(request);
  });
}

// Found by Schemathesis (auth): a 20 kB query string got Node's bare `431` with no body.
test('a request line over the limit: 431 with the JSON error body', async () => {
  const answer = await rawAnswer(`GET /?q=${'x'.repeat(20_000)} HTTP/1.1\r\nHost: a\r\n\r\n`);
  assert.match(answer, /^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
  assert.match(answer, /content-type: application\/json/i);
  const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
  assert.equal(body.statusCode, 431);
  assert.equal(body.error, 'Request Header Fields Too Large');
});

test('malformed HTTP: 400 with the JSON error body', async () => {
  const answer = await rawAnswer('NOT HTTP AT ALL\r\n\r\n');
  assert.match(answer, /^HTTP\/1\.1 400 Bad Request\r\n/);
  assert.equal(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)).statusCode, 400);
});

test.run();
