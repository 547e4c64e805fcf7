/**
 * Forwarding: large bodies streamed both ways with bounded memory, upstream down (502) and slow
 * (504), and 1,000 concurrent requests each answered with its own decision.
 */
import * as assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { test } from '../../support/suite.ts';
import { jsonOf, sidecarForSuite, startUpstream, startWith } from './harness.ts';

const shared = sidecarForSuite(test, { UPSTREAM_TIMEOUT_MS: '500' });

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

/** Bytes of a download through the sidecar of an upstream body of `size` bytes. */
async function download(size: number): Promise<number> {
  const response = await fetch(`${shared.sidecar.base}/big`, {
    headers: { 'x-test-respond': `big:${size}` },
  });
  assert.equal(response.status, 200);
  let received = 0;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) received += chunk.length;
  return received;
}

/** An upload of `size` bytes through the sidecar, in 1 MB chunks. */
async function upload(size: number): Promise<void> {
  const chunk = Buffer.alloc(MB, 'y');
  const body = Readable.from(
    (function* () {
      for (let i = 0; i < size / MB; i++) yield chunk;
    })(),
  );
  const response = await fetch(`${shared.sidecar.base}/uploads`, {
    method: 'POST',
    headers: { 'content-type': 'application/octet-stream' },
    body: Readable.toWeb(body) as ReadableStream,
    duplex: 'half',
  } as RequestInit);
  assert.equal(response.status, 200);
  await response.text();
}

// The upstream, the sidecar and the client share this process, so the bound covers all three.
// A first, smaller transfer grows the heap once (V8's young generation, pools); the measured one
// must then stay far below its size: a proxy that buffered would grow by at least the body.
const BODY = 256 * MB;
const BOUND = 48 * MB;

// Ours: Rönd streams through Go's ReverseProxy (FlushInterval -1); the same holds here.
test('a 256 MB download is streamed: all bytes arrive, memory stays far below the body size', async () => {
  await download(32 * MB);
  let received = 0;
  const growth = await peakRssGrowth(async () => {
    received = await download(BODY);
  });
  assert.equal(received, BODY);
  assert.ok(growth < BOUND, `RSS grew by ${Math.round(growth / MB)} MB`);
});

test('a client that goes away mid-download does not hurt the sidecar', async () => {
  const abort = new AbortController();
  const response = await fetch(`${shared.sidecar.base}/big`, {
    headers: { 'x-test-respond': `big:${256 * MB}` },
    signal: abort.signal,
  });
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  await reader.read();
  abort.abort();
  await reader.read().catch(() => undefined);
  const after = await fetch(`${shared.sidecar.base}/open`);
  assert.equal(after.status, 200);
  await after.text();
});

test('a 256 MB upload is streamed to the upstream (not read for the policy: not JSON)', async () => {
  await upload(32 * MB);
  const growth = await peakRssGrowth(() => upload(BODY));
  assert.equal(shared.upstream.received.at(-1)?.body, `<${BODY} bytes>`);
  assert.ok(growth < BOUND, `RSS grew by ${Math.round(growth / MB)} MB`);
});

test('a JSON body above MAX_REQUEST_BODY_BYTES answers 413 without calling upstream', async () => {
  const small = await startWith({ TARGET_SERVICE_HOST: shared.upstream.host, MAX_REQUEST_BODY_BYTES: '64' });
  try {
    const before = shared.upstream.received.length;
    const response = await fetch(`${small.base}/payments`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ amount: 1, pad: 'x'.repeat(100) }),
    });
    assert.equal(response.status, 413);
    assert.equal(
      await response.text(),
      '{"error":"request body larger than 64 bytes","message":"Internal server error, please try again later","statusCode":413}',
    );
    assert.equal(shared.upstream.received.length, before);
  } finally {
    await small.close();
  }
});

// Ours (issue 16): Rönd's Go reverse proxy answers an empty 502 in both cases.
test('upstream unreachable: 502 JSON; upstream too slow: 504 JSON, byte for byte', async () => {
  const gone = await startUpstream();
  await gone.close();
  const orphan = await startWith({ TARGET_SERVICE_HOST: gone.host });
  try {
    const response = await fetch(`${orphan.base}/open`);
    assert.equal(response.status, 502);
    assert.equal(response.headers.get('content-type'), 'application/json');
    assert.equal(
      await response.text(),
      '{"error":"the protected service cannot be reached","message":"Bad Gateway","statusCode":502}',
    );
  } finally {
    await orphan.close();
  }
  const slow = await fetch(`${shared.sidecar.base}/open`, { headers: { 'x-test-respond': 'hang' } });
  assert.equal(slow.status, 504);
  assert.equal(
    await slow.text(),
    '{"error":"the protected service did not answer in time","message":"Gateway Timeout","statusCode":504}',
  );
});

// Ours: no Rönd test sends concurrent requests; each answer must be the decision for its own user.
test('1,000 concurrent requests (allowed, denied, row-filtered), each answered for its own user', async () => {
  const results = await Promise.all(
    Array.from({ length: 1000 }, async (_, i) => {
      const kind = (['admin', 'guest', 'rows'] as const)[i % 3] as 'admin' | 'guest' | 'rows';
      const path = kind === 'rows' ? `/rows?i=${i}` : `/admin?i=${i}`;
      const response = await fetch(`${shared.sidecar.base}${path}`, {
        headers: { miausergroups: kind, miauserid: `u${i}` },
      });
      return { i, kind, path, status: response.status, body: await jsonOf(response) };
    }),
  );
  const seen = new Map(shared.upstream.received.map((r) => [r.url, r]));
  for (const { i, kind, path, status, body } of results) {
    if (kind === 'guest') {
      assert.equal(status, 403, `request ${i}`);
      assert.equal(body.error, 'RBAC policy evaluation failed');
      assert.equal(seen.has(path), false);
      continue;
    }
    assert.equal(status, 200, `request ${i}`);
    assert.equal(body.url, path);
    if (kind === 'rows')
      assert.deepEqual(JSON.parse(String(seen.get(path)?.headers.acl_rows)), {
        $or: [{ $and: [{ owner: { $eq: `u${i}` } }] }],
      });
  }
});

test.run();
