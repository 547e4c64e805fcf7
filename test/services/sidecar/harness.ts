/**
 * A recording upstream (a real HTTP server) and the sidecar in front of it, for black-box tests.
 * The upstream answers JSON describing the request unless `x-test-respond` asks otherwise:
 * `text`, `empty`, `status:<n>`, `json:<body>`, `big:<bytes>`, `hang`.
 */
import { createServer, type IncomingHttpHeaders, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { type Db, type Document, MongoClient } from 'mongodb';
import pino, { type Logger } from 'pino';
import type { Test } from 'uvu';
import { readConfig, type Sidecar, startSidecar } from '../../../services/sidecar/index.ts';
import { startMongo } from '../../support/mongo.ts';

export const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));

export interface Received {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly rawHeaders: string[];
  readonly body: string;
}

export interface Upstream {
  readonly host: string;
  readonly received: Received[];
  close(): Promise<void>;
}

export async function startUpstream(): Promise<Upstream> {
  const received: Received[] = [];
  const server: Server = createServer(async (req, res) => {
    const respond = String(req.headers['x-test-respond'] ?? '');
    if (respond.startsWith('big:')) {
      // Streamed in chunks, so a buffering proxy would show in memory, not in correctness.
      let left = Number(respond.slice(4));
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      const chunk = Buffer.alloc(64 * 1024, 'x');
      while (left > 0) {
        const piece = left >= chunk.length ? chunk : chunk.subarray(0, left);
        left -= piece.length;
        if (!res.write(piece)) await new Promise((r) => res.once('drain', r));
      }
      res.end();
      received.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        rawHeaders: req.rawHeaders,
        body: '',
      });
      return;
    }
    let size = 0;
    const chunks: Buffer[] = [];
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      // Large uploads are counted, not kept.
      if (size < 1024 * 1024) chunks.push(chunk);
    }
    const body = size < 1024 * 1024 ? Buffer.concat(chunks).toString('utf8') : `<${size} bytes>`;
    received.push({
      method: req.method ?? '',
      url: req.url ?? '',
      headers: req.headers,
      rawHeaders: req.rawHeaders,
      body,
    });
    if (respond === 'hang') return; // never answers: the sidecar's timeout
    if (respond === 'text') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('hello');
    if (respond === 'empty') return void res.writeHead(200, { 'content-type': 'application/json' }).end();
    if (respond.startsWith('status:'))
      return void res
        .writeHead(Number(respond.slice(7)), { 'content-type': 'application/json' })
        .end('{"upstream":"error"}');
    if (respond.startsWith('json:'))
      return void res
        .writeHead(200, { 'content-type': 'application/json; charset=utf-8' })
        .end(respond.slice(5));
    res.writeHead(200, {
      'content-type': 'application/json',
      'x-upstream': 'yes',
      'set-cookie': ['a=1', 'b=2'],
    });
    res.end(JSON.stringify({ method: req.method, url: req.url, body }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    host: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export interface Running {
  readonly base: string;
  readonly sidecar: Sidecar;
  close(): Promise<void>;
}

/** The sidecar with the fixtures' policies and permissions, `env` overriding. */
export async function startWith(
  env: Record<string, string | undefined>,
  logger: Logger = pino({ level: 'silent' }),
): Promise<Running> {
  const config = readConfig({
    HTTP_PORT: '0',
    OPA_MODULES_DIRECTORY: `${FIXTURES}policies`,
    API_PERMISSIONS_FILE_PATH: `${FIXTURES}permissions.json`,
    DELAY_SHUTDOWN_SECONDS: '0',
    ...env,
  });
  const sidecar = await startSidecar({ ...config }, { logger, handleSignals: false });
  return { base: `http://127.0.0.1:${sidecar.port}`, sidecar, close: () => sidecar.close() };
}

/** The recording upstream and the sidecar in front of it that the tests of a file share. */
export interface SharedSidecar {
  readonly upstream: Upstream;
  readonly sidecar: Running;
  /** A request to the sidecar at `path`: the answer's status, body text and headers. */
  call(path: string, init?: RequestInit): Promise<Answer>;
}

export interface Answer {
  readonly status: number;
  readonly text: string;
  readonly headers: Headers;
}

/**
 * Starts a recording upstream and the sidecar in front of it (`env` added) before the tests of
 * `suite`, and closes both after them.
 */
export function sidecarForSuite(suite: Test, env: Record<string, string | undefined> = {}): SharedSidecar {
  let upstream: Upstream | undefined;
  let sidecar: Running | undefined;
  suite.before(async () => {
    upstream = await startUpstream();
    sidecar = await startWith({ TARGET_SERVICE_HOST: upstream.host, ...env });
  });
  suite.after(async () => {
    await sidecar?.close();
    await upstream?.close();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the shared sidecar is not started (before hook)');
    return value;
  };
  return {
    get upstream() {
      return started(upstream);
    },
    get sidecar() {
      return started(sidecar);
    },
    call: async (path, init = {}) => {
      const response = await fetch(started(sidecar).base + path, init);
      return { status: response.status, text: await response.text(), headers: response.headers };
    },
  };
}

export async function json(response: Response): Promise<unknown> {
  return JSON.parse(await response.text());
}

/** A request with headers `fetch` refuses to send (hop-by-hop ones); resolves with the status. */
export function rawRequest(base: string, path: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A JSON object answer, for reading its members in assertions. */
export async function jsonOf(response: Response): Promise<Record<string, unknown>> {
  return (await response.json()) as Record<string, unknown>;
}

/** The MongoDB variables of the sidecar (Rönd's RBAC collections `roles` and `bindings`). */
export function mongoEnv(url: string): Record<string, string> {
  return { MONGODB_URL: url, ROLES_COLLECTION_NAME: 'roles', BINDINGS_COLLECTION_NAME: 'bindings' };
}

/** A MongoDB nobody listens on, given up on quickly. */
export const UNREACHABLE_MONGODB_URL =
  'mongodb://127.0.0.1:1/rbac?serverSelectionTimeoutMS=200&connectTimeoutMS=200';

export interface OnMongo {
  readonly db: Db;
  readonly upstream: Upstream;
  readonly sidecar: Running;
  close(): Promise<void>;
}

/**
 * A MongoDB database (stand-in) holding `seed` (collection → documents), a recording upstream and
 * the sidecar in front of it on that database; `env` may add or override variables.
 */
export async function startOnMongo(
  seed: Record<string, Document[]>,
  env: (db: Db) => Promise<Record<string, string | undefined>> = async () => ({}),
): Promise<OnMongo> {
  const mongo = await startMongo();
  const client = new MongoClient(mongo.url);
  const db = client.db(mongo.database);
  for (const [collection, documents] of Object.entries(seed))
    await db.collection(collection).insertMany(documents);
  const url = new URL(mongo.url);
  url.pathname = `/${mongo.database}`;
  const upstream = await startUpstream();
  const sidecar = await startWith({
    TARGET_SERVICE_HOST: upstream.host,
    ...mongoEnv(url.toString()),
    ...(await env(db)),
  });
  return {
    db,
    upstream,
    sidecar,
    close: async () => {
      await sidecar.close();
      await upstream.close();
      await client.close();
      await mongo.stop();
    },
  };
}
