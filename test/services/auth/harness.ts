/** The authentication service wired to a fake Auth0 and a Redis, for the suites of this folder. */
import { Writable } from 'node:stream';
import type { Hono } from 'hono';
import { Redis } from 'ioredis';
import pino from 'pino';
import { Registry } from 'prom-client';
import type { Test } from 'uvu';
import { createAuthApp } from '../../../services/auth/app.ts';
import { type AuthConfig, parseAuthConfig } from '../../../services/auth/config.ts';
import { createRedis } from '../../../services/auth/redis.ts';
import { type FakeAuth0, startFakeAuth0 } from '../../support/fake-auth0.ts';
import { type RedisFixture, startRedis } from '../../support/redis.ts';
import { suite } from '../../support/suite.ts';

export const NAMESPACE = 'https://streamfold.test/app_metadata';

/**
 * web: website scope, two connections, SameSite=Strict; api: tokens, state required; portal:
 * website scope, no SameSite; misconfigured: a wrong secret.
 */
export function testConfig(auth0Url: string): AuthConfig {
  const common = { auth0Url, clientSecret: 'app-secret' };
  return parseAuthConfig({
    clients: {
      web: {
        ...common,
        clientId: 'web-id',
        redirectUrl: 'https://app.test/web-login/callback',
        scopes: ['offline_access', 'profile', 'email', 'website'],
        audience: 'https://api.test',
        supportedConnections: ['db', 'google'],
        defaultConnection: 'db',
        sameSite: 'Strict',
      },
      api: {
        ...common,
        clientId: 'api-id',
        redirectUrl: 'https://api-client.test/callback',
        scopes: ['offline_access', 'openid'],
        authorizeStateRequired: true,
      },
      portal: {
        ...common,
        clientId: 'web-id',
        redirectUrl: 'https://portal.test/callback',
        scopes: ['website'],
      },
      misconfigured: {
        ...common,
        clientId: 'web-id',
        clientSecret: 'not-the-secret',
        redirectUrl: 'https://app.test/cb',
        scopes: [],
      },
    },
    customClaimsNamespaces: [NAMESPACE],
    managementClient: {
      auth0Url,
      clientId: 'mgmt-id',
      clientSecret: 'mgmt-secret',
      supportedConnectionsMap: { db: { connectionId: 'con_db' }, google: { connectionId: 'con_google' } },
      defaultManagementConnectionName: 'db',
    },
  });
}

export interface Harness {
  readonly app: Hono;
  readonly auth0: FakeAuth0;
  /** A plain client on the service's Redis, to look at what it stored. */
  readonly redis: Redis;
  readonly logs: string[];
  close(): Promise<void>;
}

export async function startHarness(options: {
  redisPort: number;
  /** Where the service reaches Redis, if not at `redisPort` (e.g. through a proxy). */
  serviceRedisPort?: number;
  sessionSeconds?: number;
  logoutWithClientId?: boolean;
}): Promise<Harness> {
  const auth0 = await startFakeAuth0({
    clients: { 'web-id': 'app-secret', 'api-id': 'app-secret', 'mgmt-id': 'mgmt-secret' },
  });
  auth0.addUser({
    sub: 'auth0|ada',
    username: 'ada',
    password: 'lovelace',
    connection: 'db',
    claims: { email: 'ada@example.test', [NAMESPACE]: { groups: ['admin', 'dev'] } },
    email: 'ada@example.test',
    nickname: 'ada',
    appMetadata: { groups: ['admin', 'dev'] },
  });
  auth0.addUser({
    sub: 'google|bob',
    username: 'bob',
    password: 'builder',
    connection: 'google',
    email: 'bob@example.test',
    nickname: 'bob the builder',
    appMetadata: { groups: ['dev'], tenant: 't1' },
  });
  const serviceRedis = createRedis({
    REDIS_MODE: 'normal',
    REDIS_HOSTS: [{ host: '127.0.0.1', port: options.serviceRedisPort ?? options.redisPort }],
    REDIS_TLS: false,
    REDIS_TLS_SKIP_VERIFY: false,
  } as Parameters<typeof createRedis>[0]);
  serviceRedis.on('error', () => {});
  const redis = new Redis({ host: '127.0.0.1', port: options.redisPort });
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logs.push(String(chunk));
      done();
    },
  });
  const app = createAuthApp({
    config: testConfig(auth0.url),
    redis: serviceRedis,
    settings: {
      sessionSeconds: options.sessionSeconds ?? 3600,
      sessionScope: 'website',
      originalProtocolHeader: 'x-forwarded-proto',
    },
    logoutWithClientId: options.logoutWithClientId ?? false,
    logger: pino({ level: 'debug' }, sink),
    registry: new Registry(),
    packageInfo: { name: 'auth-test', version: '0.0.0' },
  });
  await new Promise<void>((resolve) => serviceRedis.once('ready', resolve));
  return {
    app,
    auth0,
    redis,
    logs,
    async close() {
      serviceRedis.disconnect();
      redis.disconnect();
      await auth0.close();
    },
  };
}

/** One request to the app with a client type (default `web`); redirects are not followed. */
export function call(
  app: Hono,
  path: string,
  init: {
    method?: string;
    clientType?: string | null;
    headers?: Record<string, string>;
    json?: unknown;
    form?: Record<string, string>;
  } = {},
): Promise<Response> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.clientType !== null) headers['client-type'] = init.clientType ?? 'web';
  let body: string | undefined;
  if (init.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(init.json);
  } else if (init.form !== undefined) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(init.form).toString();
  }
  return Promise.resolve(
    app.request(path, { method: init.method ?? (body ? 'POST' : 'GET'), headers, body }),
  );
}

/** The `sid` value of a response's Set-Cookie. */
export function sidOf(response: Response): string {
  const sid = /(?:^|,\s*)sid=([^;]*)/.exec(response.headers.get('set-cookie') ?? '')?.[1];
  if (!sid) throw new Error(`no sid cookie in ${response.headers.get('set-cookie')}`);
  return sid;
}

/** Logs in through `/authorize` → fake Auth0 → `/oauth/token` with the code; the token response. */
export async function codeLogin(h: Harness, clientType = 'web', state?: string): Promise<Response> {
  const authorize = await call(h.app, `/authorize${state ? `?state=${state}` : ''}`, { clientType });
  const atAuth0 = await fetch(authorize.headers.get('location')!, { redirect: 'manual' });
  const back = new URL(atAuth0.headers.get('location')!);
  return call(h.app, '/oauth/token', {
    clientType,
    json: { code: back.searchParams.get('code'), state: back.searchParams.get('state') },
  });
}

/** An answer's JSON body, fields unknown but for the error fields of design/platform.md. */
export interface JsonBody {
  readonly [field: string]: unknown;
  readonly statusCode?: number;
  readonly message?: string;
  readonly errors?: readonly unknown[];
}

export async function jsonOf(response: Response): Promise<JsonBody> {
  return (await response.json()) as JsonBody;
}

/**
 * A suite whose tests get a fresh Redis and a harness on it (`context.h`), started before and
 * stopped after the suite.
 */
export function harnessSuite(name: string): Test<{ redisServer: RedisFixture; h: Harness }> {
  const test = suite<{ redisServer: RedisFixture; h: Harness }>(name);
  test.before(async (context) => {
    context.redisServer = await startRedis();
    context.h = await startHarness({ redisPort: context.redisServer.port });
  });
  test.after(async ({ h, redisServer }) => {
    await h?.close();
    await redisServer?.stop();
  });
  return test;
}
