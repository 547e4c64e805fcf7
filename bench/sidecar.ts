/**
 * The sidecar's benchmark: `node --import tsx bench/sidecar.ts [--seconds=3] [--rounds=5]
 * [--connections=64] [--profile=<dir>]`.
 *
 * Targets: the upstream called directly; a bare Hono + undici pass-through proxy (the floor of any
 * proxy in Node: the sidecar's own forwarding, without the policy); the sidecar with an
 * allow-by-group policy; with a row filter; with a response filter over 100 records; and, for
 * reference, a naive Hono proxy through web Request/Response objects. Each server runs in a child process of its own; the load comes from
 * this process over loopback (closed loop, `connections` requests in flight).
 *
 * Rounds are interleaved (every target once per round, in turn) and each figure is the median of
 * the rounds, so that the machine's load drifts over all targets alike. Per target: requests/s,
 * p50/p99 latency, and the CPU time the serving process spent per request (its `cpuUsage`; for a
 * proxy, the proxy's own, not the upstream's), which stays meaningful on a shared machine where
 * requests/s follow the other processes' load. Then an open-loop run at half of the bare proxy's
 * maximum rate gives the p99 latency each target adds to the upstream called directly, and a run
 * with one connection the latency it adds without queueing.
 * `--profile=<dir>` writes a V8 CPU profile of the sidecar process there; `--only=floor,allow`
 * runs those targets only (the open loop needs direct, floor and allow).
 */
import { type ChildProcess, fork } from 'node:child_process';
import { createServer, type OutgoingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { type HttpBindings, serve as serveNode } from '@hono/node-server';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { Hono } from 'hono';
import pino from 'pino';
import { Pool } from 'undici';
import { readConfig, startSidecar } from '../services/sidecar/index.ts';

const { values } = parseArgs({
  options: {
    role: { type: 'string' },
    target: { type: 'string' },
    seconds: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '64' },
    profile: { type: 'string' },
    /** Comma-separated target keys (direct, floor, allow, rows, response, naive); default all. */
    only: { type: 'string' },
  },
});
const here = fileURLToPath(new URL('./sidecar/', import.meta.url));

const RECORDS = JSON.stringify(
  Array.from({ length: 100 }, (_, i) => ({ id: i, owner: `user-${i % 7}`, amount: i * 3, secret: `s-${i}` })),
);

/** Starts the role's server; answers the parent's `cpu` questions with this process's CPU time. */
async function serveRole(role: string): Promise<number> {
  process.on('message', (message) => {
    if (message === 'cpu') {
      const { user, system } = process.cpuUsage();
      process.send?.({ cpuMicros: user + system });
    }
  });
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
  if (role === 'bare' || role === 'naive') {
    const pool = new Pool(`http://${target}`, { connections: 128 });
    const app = role === 'bare' ? bareProxy(pool) : naiveProxy(pool);
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
    // Logs as in production (a line per decision at info, written synchronously as pino does to
    // stdout), to /dev/null.
    { logger: pino({ level: 'info' }, pino.destination({ dest: '/dev/null', sync: true })) },
  );
  return sidecar.port;
}

/** Headers a proxy must not pass on (RFC 9110 §7.6.1), `host` being the upstream's own. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'te', 'upgrade', 'host']);

/**
 * The floor: Hono routing, undici's pooled request with Node's raw headers, and the answer piped
 * onto Node's response, as the sidecar forwards, with no policy, input or metrics.
 */
function bareProxy(pool: Pool): Hono<{ Bindings: HttpBindings }> {
  return new Hono<{ Bindings: HttpBindings }>().all('*', async (c) => {
    const { incoming, outgoing } = c.env;
    const headers: string[] = [];
    for (let i = 0; i < incoming.rawHeaders.length; i += 2)
      if (!HOP_BY_HOP.has((incoming.rawHeaders[i] as string).toLowerCase()))
        headers.push(incoming.rawHeaders[i] as string, incoming.rawHeaders[i + 1] as string);
    const response = await pool.request({
      method: incoming.method as 'GET',
      path: incoming.url ?? '/',
      headers,
      body: incoming.headers['content-length'] || incoming.headers['transfer-encoding'] ? incoming : null,
    });
    const out: OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(response.headers))
      if (!HOP_BY_HOP.has(name)) out[name] = value;
    outgoing.writeHead(response.statusCode, out);
    response.body.pipe(outgoing);
    return RESPONSE_ALREADY_SENT;
  });
}

/** The textbook version, through web `Request`/`Response` objects: what the floor saves. */
function naiveProxy(pool: Pool): Hono {
  return new Hono().all('*', async (c) => {
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
}

interface Server {
  readonly child: ChildProcess;
  readonly host: string;
  cpuMicros(): Promise<number>;
}

function startChild(role: string, target?: string, execArgv: string[] = []): Promise<Server> {
  const args = [`--role=${role}`];
  if (target) args.push(`--target=${target}`);
  const child = fork(fileURLToPath(import.meta.url), args, {
    execArgv: ['--import', 'tsx', ...execArgv],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const cpuMicros = () =>
    new Promise<number>((resolve) => {
      child.once('message', (m) => resolve((m as { cpuMicros: number }).cpuMicros));
      child.send('cpu');
    });
  return new Promise((resolve, reject) => {
    child.once('message', (m) => {
      resolve({ child, host: `127.0.0.1:${(m as { port: number }).port}`, cpuMicros });
    });
    child.once('exit', (code) => reject(new Error(`${role} exited with ${code}`)));
  });
}

interface Measure {
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  /** CPU time of the serving process per request, µs. */
  readonly cpu: number;
  readonly errors: number;
}

function percentile(sorted: Float64Array, p: number): number {
  return sorted.length === 0
    ? Number.NaN
    : (sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] as number);
}

const median = (xs: readonly number[]): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

/** The round's measure of a target (present by construction). */
function nth(measures: readonly Measure[] | undefined, round: number): Measure {
  const m = measures?.[round];
  if (!m) throw new Error(`no measure for round ${round}`);
  return m;
}

const HEADERS = { miausergroups: 'reader', miauserid: 'user-3' };

/** Runs `load` while measuring the server's CPU time; returns the load's latencies. */
async function measured(
  server: Server,
  seconds: number,
  load: (record: (ms: number) => void, fail: () => void) => Promise<void>,
): Promise<Measure> {
  const latencies: number[] = [];
  let errors = 0;
  const cpuBefore = await server.cpuMicros();
  await load(
    (ms) => latencies.push(ms),
    () => errors++,
  );
  const cpu = (await server.cpuMicros()) - cpuBefore;
  const sorted = Float64Array.from(latencies).sort();
  return {
    rps: latencies.length / seconds,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    cpu: cpu / Math.max(1, latencies.length + errors),
    errors,
  };
}

/** One request; its latency is recorded when it answers 200. */
async function once(pool: Pool, path: string, record: (ms: number) => void, fail: () => void) {
  const started = performance.now();
  const response = await pool.request({ method: 'GET', path, headers: HEADERS });
  await response.body.dump();
  if (response.statusCode === 200) record(performance.now() - started);
  else fail();
}

/** Closed loop: `connections` requests always in flight for `seconds`. */
function maxRate(server: Server, path: string, seconds: number, connections: number): Promise<Measure> {
  return measured(server, seconds, async (record, fail) => {
    const pool = new Pool(`http://${server.host}`, { connections });
    const end = performance.now() + seconds * 1000;
    const worker = async () => {
      while (performance.now() < end) await once(pool, path, record, fail);
    };
    await Promise.all(Array.from({ length: connections }, worker));
    await pool.close();
  });
}

/**
 * Open loop: `rate` requests/s, each timed from its send. A one-second warm-up at the same rate
 * comes first, unmeasured: it opens the pool's connections (and the proxy's own to the upstream),
 * whose set-up would otherwise be the p99 of the run.
 */
async function fixedRate(server: Server, path: string, seconds: number, rate: number): Promise<Measure> {
  const pool = new Pool(`http://${server.host}`, { connections: 256 });
  try {
    await sendAtRate(pool, path, 1, rate, ignore, ignore);
    return await measured(server, seconds, (record, fail) =>
      sendAtRate(pool, path, seconds, rate, record, fail),
    );
  } finally {
    await pool.close();
  }
}

const ignore = () => {};

async function sendAtRate(
  pool: Pool,
  path: string,
  seconds: number,
  rate: number,
  record: (ms: number) => void,
  fail: () => void,
): Promise<void> {
  const total = Math.floor(rate * seconds);
  const start = performance.now();
  const inFlight: Promise<void>[] = [];
  let sent = 0;
  while (sent < total) {
    const due = Math.min(total, Math.floor(((performance.now() - start) / 1000) * rate));
    for (; sent < due; sent++) inFlight.push(once(pool, path, record, fail));
    // A 1 ms tick, not a busy loop: the load generator shares the cores with the servers.
    await new Promise((r) => setTimeout(r, 1));
  }
  await Promise.all(inFlight);
}

interface Target {
  readonly key: string;
  readonly name: string;
  readonly server: Server;
  readonly path: string;
}

async function main(): Promise<void> {
  const seconds = Number(values.seconds);
  const rounds = Number(values.rounds);
  const connections = Number(values.connections);
  const upstream = await startChild('upstream');
  const bare = await startChild('bare', upstream.host);
  const naive = await startChild('naive', upstream.host);
  const profile = values.profile ? ['--cpu-prof', `--cpu-prof-dir=${values.profile}`] : [];
  const sidecar = await startChild('sidecar', upstream.host, profile);
  const servers = [upstream, bare, naive, sidecar];
  const all: Target[] = [
    { key: 'direct', name: 'upstream direct', server: upstream, path: '/hello' },
    { key: 'floor', name: 'bare Hono + undici proxy (the floor)', server: bare, path: '/hello' },
    { key: 'allow', name: 'sidecar, allow by group', server: sidecar, path: '/hello' },
    { key: 'rows', name: 'sidecar, row filter', server: sidecar, path: '/rows' },
    { key: 'response', name: 'sidecar, response filter (100 records)', server: sidecar, path: '/items' },
    { key: 'naive', name: 'naive Hono proxy (web Request/Response)', server: naive, path: '/hello' },
  ];
  const only = values.only?.split(',');
  const targets = all.filter((t) => !only || only.includes(t.key));
  const index = (key: string) => targets.findIndex((t) => t.key === key);
  const [direct, floor, allow] = [index('direct'), index('floor'), index('allow')];
  try {
    for (const t of targets) await maxRate(t.server, t.path, 1, connections); // warm-up (JIT, pools)
    const closed = targets.map(() => [] as Measure[]);
    for (let r = 0; r < rounds; r++)
      for (const [i, t] of targets.entries())
        closed[i]?.push(await maxRate(t.server, t.path, seconds, connections));
    const med = (i: number, key: keyof Measure) => median((closed[i] ?? []).map((m) => m[key]));
    // Same-round ratios, then their median.
    const ratio = (key: 'rps' | 'cpu', a: number, b: number) =>
      median((closed[a] ?? []).map((m, r) => m[key] / nth(closed[b], r)[key]));

    const f = (n: number) => n.toFixed(2);
    console.log(
      `\nNode ${process.version}, ${rounds} interleaved rounds of ${seconds} s, ${connections} connections; medians\n`,
    );
    console.log('| Target | requests/s | p50 ms | p99 ms | CPU µs/request | non-200 |');
    console.log('| --- | ---: | ---: | ---: | ---: | ---: |');
    for (const [i, t] of targets.entries())
      console.log(
        `| ${t.name} | ${Math.round(med(i, 'rps'))} | ${f(med(i, 'p50'))} | ${f(med(i, 'p99'))} | ${Math.round(med(i, 'cpu'))} | ${med(i, 'errors')} |`,
      );
    if (floor >= 0 && allow >= 0)
      console.log(
        `\nSidecar (allow) / bare proxy: requests/s ${f(ratio('rps', allow, floor))} (target ≥ 0.7), CPU per request ${f(ratio('cpu', allow, floor))}`,
      );
    if (direct < 0 || floor < 0 || allow < 0) return;

    const half = med(floor, 'rps') / 2;
    const openTargets = [direct, floor, allow];
    const open = openTargets.map(() => [] as Measure[]);
    for (let r = 0; r < rounds; r++)
      for (const [j, i] of openTargets.entries()) {
        const t = targets[i] as Target;
        open[j]?.push(await fixedRate(t.server, t.path, seconds, half));
      }
    const openP99 = (j: number) => median((open[j] ?? []).map((m) => m.p99));
    const added = (j: number) => median((open[j] ?? []).map((m, r) => m.p99 - nth(open[0], r).p99));
    console.log(
      `Open loop at ${Math.round(half)} requests/s (half the bare proxy's maximum): p99 upstream direct ${f(openP99(0))} ms, bare proxy ${f(openP99(1))} ms, sidecar (allow) ${f(openP99(2))} ms`,
    );
    console.log(
      `Added p99 over the upstream direct: bare proxy ${f(added(1))} ms, sidecar (allow) ${f(added(2))} ms (target ≤ 1 ms)`,
    );

    // One request at a time: the latency each hop adds without any queueing of ours.
    const single = openTargets.map(() => [] as Measure[]);
    for (let r = 0; r < rounds; r++)
      for (const [j, i] of openTargets.entries()) {
        const t = targets[i] as Target;
        single[j]?.push(await maxRate(t.server, t.path, seconds, 1));
      }
    const one = (j: number, key: 'p50' | 'p99') =>
      median((single[j] ?? []).map((m, r) => m[key] - nth(single[0], r)[key]));
    console.log(
      `One connection, added over the upstream direct: bare proxy p50 ${f(one(1, 'p50'))} ms p99 ${f(one(1, 'p99'))} ms, sidecar (allow) p50 ${f(one(2, 'p50'))} ms p99 ${f(one(2, 'p99'))} ms`,
    );
  } finally {
    // SIGTERM lets a profiled child write its profile; the others stop the same way.
    for (const s of servers) s.child.kill('SIGTERM');
  }
}

if (values.role) {
  serveRole(values.role).then((port) => process.send?.({ port }));
  // --cpu-prof writes on a normal exit only.
  process.once('SIGTERM', () => process.exit(0));
} else {
  await main();
}
