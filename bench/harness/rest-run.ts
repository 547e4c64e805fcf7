/**
 * The REST-to-broker benchmark's processes: `node --import tsx bench/harness/rest-run.ts '<spec>'`.
 *
 * - `serve`: a rest2broker service on loopback, one route `POST /bench/:id` producing the body to
 *   `topic` keyed by `:id`, answered once the broker acknowledged it; prints `LISTENING <port>`
 *   and runs until SIGTERM, then prints the CPU seconds it spent since listening (a ServeResult).
 * - `load`: the load generator: `concurrency` requests open at any time, `requests` in all, each
 *   awaiting its answer (any answer but 204 fails the run), on as many keep-alive connections.
 * - `produce`: the bare produce loop the route is measured against: the same records through the
 *   same idempotent `acks=all` producer, `concurrency` awaiting their delivery reports at any time.
 *
 * `load` and `produce` print a RestRunResult after RESULT_PREFIX.
 */
import pino from 'pino';
import { Pool } from 'undici';
import { createKafkaBroker } from '../../operators/broker/kafka/index.ts';
import { createRest2Broker } from '../../services/rest2broker/index.ts';
import { RESULT_PREFIX } from './run-child.ts';

export type RestRunSpec =
  | { readonly mode: 'serve'; readonly bootstrap: string; readonly topic: string }
  | { readonly mode: 'load'; readonly url: string; readonly requests: number; readonly concurrency: number }
  | {
      readonly mode: 'produce';
      readonly bootstrap: string;
      readonly topic: string;
      readonly requests: number;
      readonly concurrency: number;
    };

export interface RestRunResult {
  readonly requests: number;
  readonly concurrency: number;
  readonly seconds: number;
  readonly perSecond: number;
  /** CPU time of this process (the load generator, or the produce loop) per request, µs. */
  readonly cpuMicrosPerRequest: number;
}

/** What the `serve` process prints when stopped. */
export interface ServeResult {
  readonly cpuSeconds: number;
}

export const LISTENING = 'LISTENING ';

/** The body of request `i` (a customer change event, as the workloads' records). */
export function requestBody(i: number): string {
  return JSON.stringify({ op: 'c', before: null, after: { id: i, name: `customer ${i}`, tier: 'gold' } });
}

/** Runs `send(i)` for i in 0..requests-1, at most `concurrency` at a time; the time it took. */
async function bounded(
  requests: number,
  concurrency: number,
  send: (i: number) => Promise<void>,
): Promise<RestRunResult> {
  let next = 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(concurrency, requests) }, async () => {
      while (next < requests) await send(next++);
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const { user, system } = process.cpuUsage(cpu);
  return {
    requests,
    concurrency,
    seconds,
    perSecond: requests / seconds,
    cpuMicrosPerRequest: (user + system) / requests,
  };
}

async function serve(bootstrap: string, topic: string): Promise<void> {
  const service = createRest2Broker({
    brokers: bootstrap,
    routes: [{ method: 'POST', path: '/bench/:id', broker: { topic, key: (request) => request.params.id! } }],
    service: { name: 'rest2broker-bench', version: '0.0.0' },
    logger: pino({ level: 'silent' }),
  });
  const server = await service.listen({ hostname: '127.0.0.1', port: 0, handleSignals: false });
  const cpu = process.cpuUsage();
  process.once('SIGTERM', () => {
    const { user, system } = process.cpuUsage(cpu);
    const result: ServeResult = { cpuSeconds: (user + system) / 1e6 };
    process.stdout.write(`${RESULT_PREFIX}${JSON.stringify(result)}\n`);
    void service.close().then(() => process.exit(0));
  });
  process.stdout.write(`${LISTENING}${server.port}\n`);
}

/**
 * undici's `request` on a keep-alive pool of `concurrency` connections, not `fetch`: `fetch` (the
 * WHATWG `Request`, `Response`, `AbortSignal` and web streams of every call) cost the generator
 * 700-800 µs of CPU per request, more than the service itself, on the same two cores; this costs
 * about 150-200 µs.
 */
async function load(url: string, requests: number, concurrency: number): Promise<RestRunResult> {
  const pool = new Pool(url, { connections: concurrency, pipelining: 1 });
  try {
    return await bounded(requests, concurrency, async (i) => {
      const { statusCode, body } = await pool.request({
        method: 'POST',
        path: `/bench/${i}`,
        body: requestBody(i),
      });
      await body.dump();
      if (statusCode !== 204) throw new Error(`request ${i}: status ${statusCode}`);
    });
  } finally {
    await pool.close();
  }
}

async function produce(bootstrap: string, topic: string, requests: number, concurrency: number) {
  const producer = createKafkaBroker({ properties: { 'bootstrap.servers': bootstrap } }).producer();
  await producer.connect();
  try {
    return await bounded(requests, concurrency, async (i) => {
      await producer.produce({ topic, key: Buffer.from(String(i)), value: Buffer.from(requestBody(i)) });
    });
  } finally {
    await producer.disconnect();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const spec = JSON.parse(process.argv[2] ?? '') as RestRunSpec;
  const run =
    spec.mode === 'serve'
      ? serve(spec.bootstrap, spec.topic).then(() => null)
      : spec.mode === 'load'
        ? load(spec.url, spec.requests, spec.concurrency)
        : produce(spec.bootstrap, spec.topic, spec.requests, spec.concurrency);
  run.then(
    (result) => {
      if (result === null) return;
      process.stdout.write(`${RESULT_PREFIX}${JSON.stringify(result)}\n`);
      process.exit(0);
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
