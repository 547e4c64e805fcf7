/**
 * Hostile clients for one service, all on 127.0.0.1 and bounded in count and time: a body far
 * over the limit streamed slowly, a request line and headers over the limit, headers sent byte
 * by byte, many idle connections, a client that pipelines requests and never reads. Each
 * answers what the service said and how its memory and another client's latency fared.
 */
import { readFileSync } from 'node:fs';
import { get } from 'node:http';
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

export interface Target {
  readonly port: number;
  readonly pid: number;
  /** A cheap GET another client keeps asking (the health route). */
  readonly probePath: string;
  /** Where a body goes, and the headers it needs to get past authentication. */
  readonly bodyPath: string;
  readonly bodyHeaders?: Record<string, string>;
}

export interface BodyFigures {
  readonly status: number;
  readonly sentBytes: number;
}

export interface Figures {
  readonly declaredBody: BodyFigures;
  readonly chunkedBody: BodyFigures;
  readonly longHeaders: number;
  readonly longUrl: number;
  readonly slowHeaders: { status: number; seconds: number };
  readonly rssMb: { before: number; after: number };
  /** The other client's slowest request: alone, beside the idle connections, then the pipeliner. */
  readonly probeMs: { baseline: number; withIdle: number; withPipelining: number };
}

const IDLE_CONNECTIONS = 300;
const PIPELINED_REQUESTS = 5000;
const CHUNK = Buffer.alloc(64 * 1024, 'a');
const MAX_BODY_BYTES = 64 * 1024 * 1024;

function rssMb(pid: number): number {
  const line = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Math.round(Number(line?.[1] ?? 0) / 1024);
}

function open(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** The status of the first answer on `socket`, or 0 if it closes without one within `ms`. */
function statusOn(socket: Socket, ms: number): Promise<number> {
  return new Promise((resolve) => {
    let text = '';
    const done = (status: number) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(status);
    };
    const timer = setTimeout(() => done(0), ms);
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
      const status = /^HTTP\/1\.1 (\d{3})/.exec(text);
      if (status && text.includes('\r\n\r\n')) done(Number(status[1]));
    });
    socket.on('error', () => done(0));
    socket.on('close', () => done(0));
  });
}

async function rawStatus(port: number, request: string): Promise<number> {
  const socket = await open(port);
  const answer = statusOn(socket, 5000);
  socket.write(request);
  return answer;
}

/**
 * A body of 64 MiB, declared by Content-Length or chunked, in 64 KiB pieces every 10 ms until
 * the service answers: the status, and how much went out before it did.
 */
async function oversizedSlowBody(target: Target, chunked: boolean): Promise<BodyFigures> {
  const socket = await open(target.port);
  const headers = Object.entries(target.bodyHeaders ?? {})
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  let answered = false;
  const answer = statusOn(socket, 30_000).then((status) => {
    answered = true;
    return status;
  });
  const framing = chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${MAX_BODY_BYTES}`;
  socket.write(
    `POST ${target.bodyPath} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
      `${headers}${framing}\r\n\r\n`,
  );
  let sentBytes = 0;
  while (!answered && sentBytes < MAX_BODY_BYTES && !socket.destroyed) {
    if (chunked) socket.write(`${CHUNK.length.toString(16)}\r\n${CHUNK.toString()}\r\n`);
    else socket.write(CHUNK);
    sentBytes += CHUNK.length;
    await sleep(10);
  }
  return { status: await answer, sentBytes };
}

/** The request line, then a header byte every 500 ms: how long until the service answers. */
async function slowHeaders(target: Target): Promise<{ status: number; seconds: number }> {
  const socket = await open(target.port);
  const started = Date.now();
  const answer = statusOn(socket, 20_000);
  socket.write(`GET ${target.probePath} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: `);
  let answered = false;
  void answer.then(() => (answered = true));
  while (!answered && Date.now() - started < 20_000) {
    if (!socket.destroyed) socket.write('a');
    await sleep(500);
  }
  return { status: await answer, seconds: Math.round((Date.now() - started) / 100) / 10 };
}

/** One probe request on a connection of its own (a pooled one may have been closed meanwhile). */
function probeOnce(target: Target): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = get(
      { host: '127.0.0.1', port: target.port, path: target.probePath, agent: false, timeout: 10_000 },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    request.on('timeout', () => request.destroy(new Error('probe timed out')));
    request.on('error', reject);
  });
}

/** The slowest of `count` sequential probe requests, in ms. */
async function probeMs(target: Target, count: number): Promise<number> {
  let slowest = 0;
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    const status = await probeOnce(target);
    if (status !== 200) throw new Error(`probe answered ${status}`);
    slowest = Math.max(slowest, performance.now() - started);
  }
  return Math.round(slowest);
}

export async function hostileRun(target: Target): Promise<Figures> {
  const before = rssMb(target.pid);
  const baseline = await probeMs(target, 20);
  const slow = slowHeaders(target);
  const declaredBody = await oversizedSlowBody(target, false);
  const chunkedBody = await oversizedSlowBody(target, true);
  const longHeaders = await rawStatus(
    target.port,
    `GET ${target.probePath} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(40_000)}\r\n\r\n`,
  );
  const longUrl = await rawStatus(
    target.port,
    `GET /${'a'.repeat(40_000)} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`,
  );
  const idle = await Promise.all(Array.from({ length: IDLE_CONNECTIONS }, () => open(target.port)));
  const withIdle = await probeMs(target, 20);
  const reader = await open(target.port);
  const pipelined = `GET ${target.probePath} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`.repeat(PIPELINED_REQUESTS);
  reader.pause();
  reader.write(pipelined);
  await sleep(500);
  const withPipelining = await probeMs(target, 20);
  const after = rssMb(target.pid);
  for (const socket of [...idle, reader]) socket.destroy();
  return {
    declaredBody,
    chunkedBody,
    longHeaders,
    longUrl,
    slowHeaders: await slow,
    rssMb: { before, after },
    probeMs: { baseline, withIdle, withPipelining },
  };
}
