/**
 * Authentication service benchmark.
 *
 *   node --import tsx bench/auth-userinfo.ts [--seconds=2] [--rounds=5] [--connections=32]
 *     [--log-level=info] [--only=target] [--profile=dir]
 *
 * `GET /userinfo` by `sid` cookie and `GET /users/me` against the floor: a bare Hono route that
 * does one Redis `GET` of a key holding the same `/userinfo` body and answers it as is (once with
 * a default client, once auto-pipelined as the service's client is; the faster counts).
 * Requests/s, p99, Redis commands per request (target 1) and the server's CPU per request, all
 * measured in the same run on loopback; target: the service ≥ 0.7× the floor's requests/s.
 * The service's `GET /-/healthz` (no Redis) is measured too: what the kit's per-request middleware
 * (request log, metrics) costs on its own. The service logs at `--log-level` (info: a line per
 * request, as in production) to /dev/null.
 * The servers run in a child process, the load in this one; Redis is a fresh `redis-server`.
 * `--only=userinfo` (or another target's name) loads that target alone, e.g. with
 * `--profile=dir`, which writes the child's V8 CPU profile there (read it with bench/profile-top.ts).
 */
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { serve as serveNode } from '@hono/node-server';
import { Hono } from 'hono';
import { Redis } from 'ioredis';
import { Registry } from 'prom-client';
import { Pool } from 'undici';
import { createAuthApp } from '../services/auth/app.ts';
import { parseAuthConfig } from '../services/auth/config.ts';
import { createRedis } from '../services/auth/redis.ts';
import { createServiceLogger, serve } from '../services/kit/index.ts';
import { startFakeAuth0 } from '../test/support/fake-auth0.ts';
import { startRedis } from '../test/support/redis.ts';

interface Ports {
  readonly auth: number;
  readonly floor: number;
}

/** Child: the service (fake Auth0, Redis at REDIS_PORT) and the floor route, on free ports. */
async function serveBoth(redisPort: number, logLevel: string): Promise<Ports> {
  const auth0 = await startFakeAuth0({ clients: { 'web-id': 'web-secret', 'm-id': 'm-secret' } });
  auth0.addUser({
    sub: 'auth0|ada',
    username: 'ada',
    password: 'pw',
    connection: 'db',
    claims: { email: 'a@x' },
  });
  const client = {
    auth0Url: auth0.url,
    clientId: 'web-id',
    clientSecret: 'web-secret',
    redirectUrl: 'http://127.0.0.1/cb',
    scopes: ['website'],
  };
  const config = parseAuthConfig({
    clients: { web: client },
    managementClient: { auth0Url: auth0.url, clientId: 'm-id', clientSecret: 'm-secret' },
  });
  const hosts = [{ host: '127.0.0.1', port: redisPort }];
  const redis = createRedis({ REDIS_MODE: 'normal', REDIS_HOSTS: hosts, REDIS_TLS: false } as Parameters<
    typeof createRedis
  >[0]);
  await new Promise((resolve) => redis.once('ready', resolve));
  const app = createAuthApp({
    config,
    redis,
    settings: { sessionSeconds: 3600, sessionScope: 'website', originalProtocolHeader: 'x-forwarded-proto' },
    logoutWithClientId: false,
    // At info (the default), a log line per request as in production, to /dev/null.
    logger: createServiceLogger({ service: 'auth', level: logLevel }),
    registry: new Registry(),
    packageInfo: { name: 'auth', version: 'bench' },
  });
  const server = await serve(app, {
    hostname: '127.0.0.1',
    port: 0,
    handleSignals: false,
    delayShutdownSeconds: 0,
  });
  // The floor answers the stored text as is, as the service does with the `/userinfo` body; once
  // with a default client, once auto-pipelined as the service's client is.
  const floor = new Hono();
  for (const [path, pipelined] of [
    ['/floor', false],
    ['/floor-pipelined', true],
  ] as const) {
    const floorRedis = new Redis({ host: '127.0.0.1', port: redisPort, enableAutoPipelining: pipelined });
    floor.get(path, async (c) => {
      const value = await floorRedis.get(c.req.header('x-key') ?? '');
      return value === null
        ? c.json({ message: 'none' }, 401)
        : c.body(value, 200, { 'content-type': 'application/json' });
    });
  }
  const floorPort = await new Promise<number>((resolve) => {
    serveNode({ fetch: floor.fetch, hostname: '127.0.0.1', port: 0 }, (info) => resolve(info.port));
  });
  return { auth: server.port, floor: floorPort };
}

interface Figures {
  readonly requests: number;
  readonly perSecond: number;
  readonly p99Ms: number;
  readonly redisCommandsPerRequest: number;
  /** CPU µs the server process spent per request: steadier than requests/s on a shared machine. */
  readonly serverCpuMicrosPerRequest: number;
}

async function commandsProcessed(redis: Redis): Promise<number> {
  return Number(/total_commands_processed:(\d+)/.exec(await redis.info('stats'))![1]);
}

/** Closed-loop load: `connections` requests in flight for `seconds`. */
async function load(
  origin: string,
  request: { path: string; headers: Record<string, string> },
  options: { seconds: number; connections: number; redis: Redis; serverCpu: () => Promise<number> },
): Promise<Figures> {
  const pool = new Pool(origin, { connections: options.connections, pipelining: 1 });
  const latencies: number[] = [];
  const before = await commandsProcessed(options.redis);
  const cpuBefore = await options.serverCpu();
  const end = performance.now() + options.seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: options.connections }, async () => {
      while (performance.now() < end) {
        const t0 = performance.now();
        const { statusCode, body } = await pool.request({ method: 'GET', ...request });
        await body.text();
        if (statusCode !== 200) throw new Error(`${request.path} answered ${statusCode}`);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  const cpu = (await options.serverCpu()) - cpuBefore;
  // The two INFO calls are commands too.
  const commands = (await commandsProcessed(options.redis)) - before - 1;
  await pool.close();
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    perSecond: Math.round(latencies.length / elapsed),
    p99Ms: Math.round(latencies[Math.floor(latencies.length * 0.99)]! * 100) / 100,
    redisCommandsPerRequest: Math.round((commands / latencies.length) * 100) / 100,
    serverCpuMicrosPerRequest: Math.round((cpu / latencies.length) * 10) / 10,
  };
}

/** The server process's CPU time so far, in µs. */
function serverCpuMicros(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    child.once('message', (message) => resolve((message as { cpuMicros: number }).cpuMicros));
    child.send('cpu');
  });
}

if (process.argv[2] === '--child') {
  process.send!(await serveBoth(Number(process.argv[3]), process.argv[4]!));
  process.on('message', (message) => {
    if (message === 'cpu') {
      const { user, system } = process.cpuUsage();
      process.send!({ cpuMicros: user + system });
    } else process.exit(0); // a clean exit, so that `--cpu-prof` writes its profile
  });
} else {
  const { values } = parseArgs({
    options: {
      seconds: { type: 'string', default: '2' },
      rounds: { type: 'string', default: '5' },
      connections: { type: 'string', default: '32' },
      profile: { type: 'string' },
      only: { type: 'string' },
      'log-level': { type: 'string', default: 'info' },
    },
  });
  const options = {
    seconds: Number(values.seconds),
    rounds: Number(values.rounds),
    connections: Number(values.connections),
  };
  const redisServer = await startRedis();
  const redis = new Redis({ host: '127.0.0.1', port: redisServer.port });
  const nodeArgs = [
    '--import',
    'tsx',
    ...(values.profile === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${values.profile}`]),
  ];
  const child = fork(
    fileURLToPath(import.meta.url),
    ['--child', String(redisServer.port), values['log-level']],
    // The child's stdout (the service's log lines) is /dev/null.
    { execArgv: nodeArgs, stdio: ['inherit', 'ignore', 'inherit', 'ipc'] },
  );
  try {
    const ports = await new Promise<Ports>((resolve, reject) => {
      child.once('message', (message) => resolve(message as Ports));
      child.once('exit', (code) => reject(new Error(`server child exited with ${code}`)));
    });
    const auth = `http://127.0.0.1:${ports.auth}`;
    const serverCpu = () => serverCpuMicros(child);
    const login = await fetch(`${auth}/oauth/token`, {
      method: 'POST',
      headers: { 'client-type': 'web', 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'password', username: 'ada', password: 'pw' }),
    });
    const sid = /sid=([^;]+)/.exec(login.headers.get('set-cookie') ?? '')![1]!;
    const headers = { 'client-type': 'web', cookie: `sid=${sid}` };
    // The floor's key holds the same `/userinfo` body as the session.
    const floorKey = 'bench:floor';
    await redis.set(floorKey, await (await fetch(`${auth}/userinfo`, { headers })).text());
    const run = { ...options, redis, serverCpu };
    // Warm-up: JIT, connections.
    const warmUp = { ...run, seconds: 1 };
    await load(auth, { path: '/userinfo', headers }, warmUp);
    await load(`http://127.0.0.1:${ports.floor}`, { path: '/floor', headers: { 'x-key': floorKey } }, warmUp);
    const targets = {
      floor: { origin: `http://127.0.0.1:${ports.floor}`, path: '/floor', headers: { 'x-key': floorKey } },
      'floor, auto-pipelined': {
        origin: `http://127.0.0.1:${ports.floor}`,
        path: '/floor-pipelined',
        headers: { 'x-key': floorKey },
      },
      userinfo: { origin: auth, path: '/userinfo', headers },
      'users/me': { origin: auth, path: '/users/me', headers },
      'kit /-/healthz': { origin: auth, path: '/-/healthz', headers: {} },
    };
    type Name = keyof typeof targets;
    if (values.only !== undefined) {
      // One target alone, e.g. to profile it: its figures, no ratios.
      if (!Object.hasOwn(targets, values.only)) {
        throw new Error(`--only: "${values.only}" is not one of ${Object.keys(targets).join(', ')}`);
      }
      const { origin, ...request } = targets[values.only as Name];
      console.table({ [values.only]: await load(origin, request, run) });
    } else {
      // Rounds alternate the targets, so a change of the machine's load (2 cores, shared) falls on
      // every target alike; each figure is the median of its rounds.
      const measured = new Map<Name, Figures[]>();
      // Each round starts one target further, so that no target always follows the same one.
      const order = Object.entries(targets) as Array<[Name, (typeof targets)[Name]]>;
      for (let round = 0; round < options.rounds; round++) {
        for (const [name, { origin, ...request }] of [
          ...order.slice(round % order.length),
          ...order.slice(0, round % order.length),
        ]) {
          const figures = await load(origin, request, run);
          measured.set(name, [...(measured.get(name) ?? []), figures]);
        }
      }
      const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
      const rows = Object.fromEntries(
        [...measured].map(([name, runs]) => [
          name,
          {
            requests: runs.reduce((sum, r) => sum + r.requests, 0),
            perSecond: median(runs.map((r) => r.perSecond)),
            p99Ms: median(runs.map((r) => r.p99Ms)),
            redisCommandsPerRequest: median(runs.map((r) => r.redisCommandsPerRequest)),
            serverCpuMicrosPerRequest: median(runs.map((r) => r.serverCpuMicrosPerRequest)),
          },
        ]),
      ) as Record<Name, Figures>;
      console.table(rows);
      // Each round's figure against the faster of the two floors of the same round (so that the
      // client option is no free gain), then the median over the rounds.
      const floors = measured.get('floor')!;
      const pipelinedFloors = measured.get('floor, auto-pipelined')!;
      const fasterFloor = floors.map((floor, round) =>
        floor.perSecond >= pipelinedFloors[round]!.perSecond ? floor : pipelinedFloors[round]!,
      );
      for (const name of ['userinfo', 'users/me'] as const) {
        const runs = measured.get(name)!;
        const ratio = median(runs.map((r, round) => r.perSecond / fasterFloor[round]!.perSecond));
        const cpuRatio = median(
          runs.map((r, round) => fasterFloor[round]!.serverCpuMicrosPerRequest / r.serverCpuMicrosPerRequest),
        );
        const verdict = ratio >= 0.7 && rows[name].redisCommandsPerRequest <= 1.01 ? 'PASS' : 'FAIL';
        console.log(
          `${name}: ${ratio.toFixed(2)}× the faster floor's requests/s (target ≥ 0.7; by server CPU per request ${cpuRatio.toFixed(2)}×), ${rows[name].redisCommandsPerRequest} Redis commands/request (target 1): ${verdict}`,
        );
      }
    }
  } finally {
    if (values.profile === undefined) child.kill('SIGKILL');
    else await new Promise((resolve) => child.once('exit', resolve).send('exit'));
    redis.disconnect();
    await redisServer.stop();
  }
}
