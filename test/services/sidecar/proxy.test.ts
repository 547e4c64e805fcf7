/**
 * Forwarding: large bodies streamed both ways with bounded memory, upstream down (502) and slow
 * (504), and 1,000 concurrent requests each answered with its own decision.
 */
import * as assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { test } from '../../support/suite.ts';
import { jsonOf, type Running, startUpstream, startWith, type Upstream } from './harness.ts';

let upstream: Upstream;
let sidecar: Running;

test.before(async () => {
  upstream = await startUpstream();
  sidecar = await startWith({ TARGET_SERVICE_HOST: upstream.host, UPSTREAM_TIMEOUT_MS: '500' });
});

test.after(async () => {
  await sidecar?.close();
  await upstream?.close();
});

const MB = 1024 * 1024;

/** Peak RSS growth while `work` runs, sampled every 20 ms. */
async function peakRssGrowth(work: () => Promise<void>): Promise<number> {
  const start = process.memoryUsage().rss;
  let peak = start;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 20);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return Math.max(peak, process.memoryUsage().rss) - start;
}

test('a 256 MB download is streamed: all bytes arrive, memory stays far below the body size', async () => {
  const size = 256 * MB;
  let received = 0;
  const growth = await peakRssGrowth(async () => {
    const response = await fetch(`${sidecar.base}/big`, { headers: { 'x-test-respond': `big:${size}` } });
    assert.equal(response.status, 200);
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) received += chunk.length;
  });
  assert.equal(received, size);
  assert.ok(growth < 128 * MB, `RSS grew by ${Math.round(growth / MB)} MB`);
});

test('a client that goes away mid-download does not hurt the sidecar', async () => {
  const abort = new AbortController();
  const response = await fetch(`${sidecar.base}/big`, {
    headers: { 'x-test-respond': `big:${256 * MB}` },
    signal: abort.signal,
  });
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  await reader.read();
  abort.abort();
  await reader.read().catch(() => undefined);
  const after = await fetch(`${sidecar.base}/open`);
  assert.equal(after.status, 200);
  await after.text();
});

test('a 256 MB upload is streamed to the upstream (not read for the policy: not JSON)', async () => {
  const size = 256 * MB;
  const chunk = Buffer.alloc(MB, 'y');
  const growth = await peakRssGrowth(async () => {
    const body = Readable.from(
      (function* () {
        for (let i = 0; i < size / MB; i++) yield chunk;
      })(),
    );
    const response = await fetch(`${sidecar.base}/uploads`, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body: Readable.toWeb(body) as ReadableStream,
      duplex: 'half',
    } as RequestInit);
    assert.equal(response.status, 200);
    await response.text();
  });
  assert.equal(upstream.received.at(-1)?.body, `<${size} bytes>`);
  assert.ok(growth < 128 * MB, `RSS grew by ${Math.round(growth / MB)} MB`);
});

test('a JSON body above MAX_REQUEST_BODY_BYTES answers 413 without calling upstream', async () => {
  const small = await startWith({ TARGET_SERVICE_HOST: upstream.host, MAX_REQUEST_BODY_BYTES: '64' });
  try {
    const before = upstream.received.length;
    const response = await fetch(`${small.base}/payments`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ amount: 1, pad: 'x'.repeat(100) }),
    });
    assert.equal(response.status, 413);
    assert.equal((await jsonOf(response)).statusCode, 413);
    assert.equal(upstream.received.length, before);
  } finally {
    await small.close();
  }
});

test('upstream unreachable: 502 JSON; upstream too slow: 504 JSON', async () => {
  const gone = await startUpstream();
  await gone.close();
  const orphan = await startWith({ TARGET_SERVICE_HOST: gone.host });
  try {
    const response = await fetch(`${orphan.base}/open`);
    assert.equal(response.status, 502);
    const body = await jsonOf(response);
    assert.equal(body.statusCode, 502);
    assert.equal(body.message, 'Bad Gateway');
  } finally {
    await orphan.close();
  }
  const slow = await fetch(`${sidecar.base}/open`, { headers: { 'x-test-respond': 'hang' } });
  assert.equal(slow.status, 504);
  assert.equal((await jsonOf(slow)).message, 'Gateway Timeout');
});

test('1,000 concurrent requests, half allowed and half denied, each answered correctly', async () => {
  const results = await Promise.all(
    Array.from({ length: 1000 }, async (_, i) => {
      const admin = i % 2 === 0;
      const response = await fetch(`${sidecar.base}/admin?i=${i}`, {
        headers: { miausergroups: admin ? 'admin' : 'guest' },
      });
      const body = await jsonOf(response);
      return { i, admin, status: response.status, body };
    }),
  );
  for (const { i, admin, status, body } of results) {
    if (admin) {
      assert.equal(status, 200, `request ${i}`);
      assert.equal(body.url, `/admin?i=${i}`);
    } else {
      assert.equal(status, 403, `request ${i}`);
      assert.equal(body.error, 'RBAC policy evaluation failed');
    }
  }
});

test.run();
