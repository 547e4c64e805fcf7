/**
 * The sidecar's benchmark: `node --import tsx bench/sidecar.ts [--seconds=5]`.
 *
 * Requests/s (closed loop, 64 connections) and p50/p99 latency of: the upstream called directly;
 * a bare Hono + undici pass-through proxy (the floor of any proxy in Node); the sidecar with an
 * allow-by-group policy; with a row filter; with a response filter over 100 records. Then the
 * sidecar's added p99 at half of its maximum rate (open loop), against the upstream at that rate.
 * `--rate=N` runs the latency comparison at N requests/s instead. Each server runs in a child process of its own; the load comes from this process (loopback).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { serve as serveNode } from '@hono/node-server';
import { Hono } from 'hono';
import pino from 'pino';
import { Pool } from 'undici';
import { readConfig, startSidecar } from '../services/sidecar/index.ts';

const { values } = parseArgs({
  options: {
    role: { type: 'string' },
    target: { type: 'string' },
    seconds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '64' },
    /** Rate of the latency run instead of half the sidecar's maximum. */
    rate: { type: 'string' },
  },
});
const here = fileURLToPath(new URL('./sidecar/', import.meta.url));
const PORT_LINE = 'PORT ';

const RECORDS = JSON.stringify(
  Array.from({ length: 100 }, (_, i) => ({ id: i, owner: `user-${i % 7}`, amount: i * 3, secret: `s-${i}` })),
);

async function serveRole(role: string): Promise<number> {
  if (role === 'upstream') {
    const server = createServer((req, res) => {
      const body = req.url?.startsWith('/items') ? RECORDS : '{"hello":"world"}';
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return (server.address() as AddressInfo).port;
  }
  const target = values.target as string;
  if (role === 'bare') {
    const pool = new Pool(`http://${target}`, { connections: 128 });
    const app = new Hono().all('*', async (c) => {
      const url = new URL(c.req.url);
      const response = await pool.request({
        method: c.req.method as 'GET',
        path: url.pathname + url.search,
        headers: Object.fromEntries(c.req.raw.headers),
        body: c.req.raw.body as never,
      });
      return new Response(response.body as never, {
        status: response.statusCode,
        headers: response.headers as Record<string, string>,
      });
    });
    const server = serveNode({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
    await new Promise((r) => server.once('listening', r));
    return (server.address() as AddressInfo).port;
  }
  const sidecar = await startSidecar(
    readConfig({
      HTTP_PORT: '0',
      TARGET_SERVICE_HOST: target,
      OPA_MODULES_DIRECTORY: here,
      API_PERMISSIONS_FILE_PATH: `${here}permissions.json`,
      DELAY_SHUTDOWN_SECONDS: '0',
    }),
    { logger: pino({ level: 'silent' }) },
  );
  return sidecar.port;
}

function startChild(role: string, target?: string): Promise<{ child: ChildProcess; host: string }> {
  const args = ['--import', 'tsx', fileURLToPath(import.meta.url), `--role=${role}`];
  if (target) args.push(`--target=${target}`);
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n').find((l) => l.startsWith(PORT_LINE));
      if (line) resolve({ child, host: `127.0.0.1:${line.slice(PORT_LINE.length).trim()}` });
    });
    child.once('exit', (code) => reject(new Error(`${role} exited with ${code}`)));
  });
}

interface Measure {
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly errors: number;
}

function percentile(sorted: Float64Array, p: number): number {
  return sorted.length === 0
    ? Number.NaN
    : (sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] as number);
}

function summarise(latencies: number[], seconds: number, errors: number): Measure {
  const sorted = Float64Array.from(latencies).sort();
  return {
    rps: latencies.length / seconds,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    errors,
  };
}

const HEADERS = { miausergroups: 'reader', miauserid: 'user-3' };

/** Closed loop: `connections` requests always in flight for `seconds`. */
async function maxRate(host: string, path: string, seconds: number, connections: number): Promise<Measure> {
  const pool = new Pool(`http://${host}`, { connections });
  const latencies: number[] = [];
  let errors = 0;
  const end = performance.now() + seconds * 1000;
  const worker = async () => {
    while (performance.now() < end) {
      const started = performance.now();
      const response = await pool.request({ method: 'GET', path, headers: HEADERS });
      await response.body.dump();
      if (response.statusCode === 200) latencies.push(performance.now() - started);
      else errors++;
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  await pool.close();
  return summarise(latencies, seconds, errors);
}

/** Open loop: `rate` requests/s, each timed from its send. */
async function fixedRate(host: string, path: string, seconds: number, rate: number): Promise<Measure> {
  const pool = new Pool(`http://${host}`, { connections: 256 });
  const latencies: number[] = [];
  let errors = 0;
  const total = Math.floor(rate * seconds);
  const start = performance.now();
  const inFlight: Promise<void>[] = [];
  let sent = 0;
  while (sent < total) {
    const due = Math.min(total, Math.floor(((performance.now() - start) / 1000) * rate));
    for (; sent < due; sent++) {
      const started = performance.now();
      inFlight.push(
        pool.request({ method: 'GET', path, headers: HEADERS }).then(async (response) => {
          await response.body.dump();
          if (response.statusCode === 200) latencies.push(performance.now() - started);
          else errors++;
        }),
      );
    }
    // A 1 ms tick, not a busy loop: the load generator shares the two cores with the servers.
    await new Promise((r) => setTimeout(r, 1));
  }
  await Promise.all(inFlight);
  await pool.close();
  return summarise(latencies, seconds, errors);
}

async function main(): Promise<void> {
  const seconds = Number(values.seconds);
  const connections = Number(values.connections);
  const upstream = await startChild('upstream');
  const bare = await startChild('bare', upstream.host);
  const sidecar = await startChild('sidecar', upstream.host);
  const children = [upstream, bare, sidecar];
  try {
    const rows: [string, Measure][] = [];
    const run = async (name: string, host: string, path: string) => {
      await maxRate(host, path, Math.min(1, seconds), connections); // warm-up (JIT, pools)
      const m = await maxRate(host, path, seconds, connections);
      rows.push([name, m]);
      return m;
    };
    await run('upstream direct', upstream.host, '/hello');
    const floor = await run('bare Hono + undici proxy', bare.host, '/hello');
    const allow = await run('sidecar, allow by group', sidecar.host, '/hello');
    await run('sidecar, row filter', sidecar.host, '/rows');
    await run('sidecar, response filter (100 records)', sidecar.host, '/items');
    const half = values.rate ? Number(values.rate) : allow.rps / 2;
    const sidecarAtHalf = await fixedRate(sidecar.host, '/hello', seconds, half);
    const directAtHalf = await fixedRate(upstream.host, '/hello', seconds, half);

    const f = (n: number) => n.toFixed(2);
    console.log(`\n${seconds} s per run, ${connections} connections, Node ${process.version}\n`);
    console.log('| Target | requests/s | p50 ms | p99 ms | non-200 |');
    console.log('| --- | ---: | ---: | ---: | ---: |');
    for (const [name, m] of rows)
      console.log(`| ${name} | ${Math.round(m.rps)} | ${f(m.p50)} | ${f(m.p99)} | ${m.errors} |`);
    console.log(
      `\nAt ${Math.round(half)} requests/s${values.rate ? '' : " (half the sidecar's maximum)"}: sidecar p99 ${f(sidecarAtHalf.p99)} ms, upstream direct p99 ${f(directAtHalf.p99)} ms, added p99 ${f(sidecarAtHalf.p99 - directAtHalf.p99)} ms (target ≤ 1 ms)`,
    );
    console.log(
      `Sidecar (allow) / bare proxy requests/s: ${(allow.rps / floor.rps).toFixed(2)} (target ≥ 0.7)`,
    );
  } finally {
    for (const c of children) c.child.kill('SIGKILL');
  }
}

if (values.role) {
  serveRole(values.role).then((port) => process.stdout.write(`${PORT_LINE}${port}\n`));
} else {
  await main();
}
