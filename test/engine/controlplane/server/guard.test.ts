/** Who may change state: the token, the cross-site checks, and the loopback default. */
import * as assert from 'uvu/assert';
import { test } from '../../../support/suite.ts';
import { startConsole } from './support.ts';

const TOKEN = 'console-test-token';

test('with a token: changes need it (401 without, 403 wrong), reads do not', async () => {
  const cp = await startConsole({ token: TOKEN });
  try {
    const missing = await cp.post('/api/resume-all');
    assert.is(missing.status, 401);
    assert.match(String(missing.body.message), /requires a token/);
    const wrong = await cp.post('/api/resume-all', { authorization: 'Bearer nope' });
    assert.is(wrong.status, 403);
    assert.is(wrong.body.message, 'wrong token');
    const right = await cp.post('/api/resume-all', { authorization: `Bearer ${TOKEN}` });
    assert.is(right.status, 202);
    assert.equal(right.body, { requests: [] });
    assert.is((await fetch(`${cp.url}/api/engines`)).status, 200);
    const page = await (await fetch(`${cp.url}/`)).text();
    assert.match(page, /data-token-required="true"/);
    assert.match(page, /<label>Console token <input id="token" type="password"/);
    assert.not.ok(JSON.stringify(cp.logLines).includes(TOKEN), 'the token is never logged');
  } finally {
    await cp.close();
  }
});

test('another site cannot post: a foreign Origin is refused, a non-JSON body too', async () => {
  const cp = await startConsole();
  try {
    const foreign = await cp.post('/api/resume-all', { origin: 'http://evil.example' });
    assert.is(foreign.status, 403);
    assert.match(String(foreign.body.message), /cross-origin request from http:\/\/evil.example refused/);
    const sameOrigin = await cp.post('/api/resume-all', { origin: cp.url });
    assert.is(sameOrigin.status, 202);
    const form = await fetch(`${cp.url}/api/resume-all`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: '{}',
    });
    assert.is(form.status, 415);
  } finally {
    await cp.close();
  }
});

test('bound beyond loopback without a token, it refuses to start', async () => {
  try {
    await startConsole({ host: '0.0.0.0' });
    assert.unreachable('started without a token');
  } catch (error) {
    assert.match((error as Error).message, /bound to 0\.0\.0\.0 it needs a token/);
  }
  const withToken = await startConsole({ host: '0.0.0.0', token: TOKEN });
  await withToken.close();
});

test('live updates: the state as a server-sent event', async () => {
  const cp = await startConsole();
  const controller = new AbortController();
  try {
    const response = await fetch(`${cp.url}/api/events`, { signal: controller.signal });
    assert.match(String(response.headers.get('content-type')), /text\/event-stream/);
    const reader = response.body!.getReader();
    let text = '';
    while (!text.includes('\n\n')) text += new TextDecoder().decode((await reader.read()).value);
    assert.match(text, /^event: state\ndata: \{"now":\d+,"engines":\[\],"requests":\[\]\}\nid: 1\n\n/);
  } finally {
    controller.abort();
    await cp.close();
  }
});

test.run();
