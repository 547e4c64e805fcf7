/**
 * A fake Auth0 tenant for tests and examples: a real HTTP server on loopback answering the parts of
 * Auth0's Authentication API the authentication service uses, with ID tokens signed by jose and
 * published at `/.well-known/jwks.json`. It records every request, so a test asserts what was
 * sent to Auth0, and can be told to misbehave once (empty access token, tampered ID token).
 *
 * @example
 *   const auth0 = await startFakeAuth0({ clients: { 'app-id': 'app-secret' } });
 *   auth0.addUser({ sub: 'auth0|1', username: 'ada', password: 'pw', connection: 'db' });
 *   // ... point the service's auth0Url at auth0.url ...
 *   await auth0.close();
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from 'jose';
import { parseUserSearch, type SearchFields } from './fake-auth0-lucene.ts';

export interface FakeUser {
  readonly sub: string;
  readonly username: string;
  readonly password: string;
  readonly connection: string;
  /** Further claims of the user's ID token and userinfo (e.g. a namespaced `app_metadata`). */
  readonly claims?: Readonly<Record<string, unknown>>;
  readonly email?: string;
  readonly nickname?: string;
  readonly appMetadata?: Readonly<Record<string, unknown>>;
}

/** A users-imports job the Management API accepted. */
export interface FakeImportJob {
  readonly id: string;
  readonly type: 'users_import';
  readonly status: 'pending';
  readonly connection_id: string;
  readonly users: readonly unknown[];
}

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  readonly headers: IncomingMessage['headers'];
  readonly body: Readonly<Record<string, unknown>> | undefined;
}

/** A one-shot change to the next token answer. */
export interface TokenTampering {
  readonly emptyAccessToken?: boolean;
  /** Merged into the ID token's claims, e.g. `{ aud: 'other' }` or `{ exp: <past> }`. */
  readonly idTokenClaims?: Readonly<Record<string, unknown>>;
  /** Signs the ID token with a key that is not in the JWKS. */
  readonly foreignKey?: boolean;
}

export interface FakeAuth0 {
  /** `http://127.0.0.1:<port>`, no trailing slash; the issuer is this plus `/`. */
  readonly url: string;
  readonly requests: RecordedRequest[];
  addUser(user: FakeUser): void;
  /** The user `/authorize` logs in (the login page is skipped); default: the first added. */
  loginAs(username: string): void;
  tamperNextToken(tampering: TokenTampering): void;
  /** `expires_in` of the access tokens issued from now on (default 3600). */
  setExpiresIn(seconds: number): void;
  /** Refresh tokens issued so far stop working (e.g. the user was blocked). */
  revokeRefreshTokens(): void;
  /** The users, as the Management API holds them (created, updated, deleted through it). */
  readonly users: FakeUser[];
  readonly importJobs: FakeImportJob[];
  /** Management API tokens issued so far stop working (as when Auth0 rotates its keys). */
  revokeManagementTokens(): void;
  close(): Promise<void>;
}

interface CodeGrant {
  readonly user: FakeUser;
  readonly clientId: string;
  readonly redirectUri: string;
  readonly nonce: string | undefined;
  readonly codeChallenge: string | undefined;
  readonly scope: string;
}

const KID = 'fake-auth0-key';

/** What the user search sees of a user, with `app_metadata` flattened to dotted names. */
function searchFields(user: FakeUser): SearchFields {
  const fields: Record<string, unknown> = {
    user_id: user.sub,
    username: user.username,
    email: user.email,
    nickname: user.nickname,
    'identities.connection': user.connection,
  };
  for (const [name, value] of Object.entries(user.appMetadata ?? {})) fields[`app_metadata.${name}`] = value;
  return fields;
}

/**
 * A client entry of the authentication service's configuration for a fake that knows client
 * `web-id` / `web-secret`, redirecting to `http://127.0.0.1/callback`; `more` adds fields (scopes,
 * connections).
 */
export function webClientConfig(auth0Url: string, more: Record<string, unknown>): Record<string, unknown> {
  return {
    auth0Url,
    clientId: 'web-id',
    clientSecret: 'web-secret',
    redirectUrl: 'http://127.0.0.1/callback',
    ...more,
  };
}

/** The Management API's view of a user. */
function managementView(user: FakeUser) {
  return {
    user_id: user.sub,
    username: user.username,
    email: user.email,
    nickname: user.nickname,
    app_metadata: user.appMetadata ?? {},
    identities: [{ connection: user.connection, user_id: user.sub.split('|')[1], provider: 'auth0' }],
  };
}

export async function startFakeAuth0(options: {
  /** client id → client secret. */
  clients: Readonly<Record<string, string>>;
  /** Default 0: any free port. */
  port?: number;
}): Promise<FakeAuth0> {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const foreign = await generateKeyPair('RS256');
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid: KID, alg: 'RS256', use: 'sig' };
  const users: FakeUser[] = [];
  const requests: RecordedRequest[] = [];
  const codes = new Map<string, CodeGrant>();
  const accessTokens = new Map<string, FakeUser>();
  const refreshTokens = new Map<string, { user: FakeUser; clientId: string }>();
  const managementTokens = new Set<string>();
  const importJobs: FakeImportJob[] = [];
  let loginUser: FakeUser | undefined;
  let tampering: TokenTampering | undefined;
  let expiresIn = 3600;
  let url = '';

  const randomId = (prefix: string) => `${prefix}${randomBytes(16).toString('base64url')}`;

  async function issueTokens(user: FakeUser, clientId: string, scope: string, nonce?: string) {
    const once = tampering;
    tampering = undefined;
    const accessToken = once?.emptyAccessToken ? '' : randomId('at_');
    if (accessToken) accessTokens.set(accessToken, user);
    const now = Math.floor(Date.now() / 1000);
    const claims: JWTPayload = {
      iss: `${url}/`,
      aud: clientId,
      sub: user.sub,
      iat: now,
      exp: now + 3600,
      ...user.claims,
      nonce,
      ...once?.idTokenClaims,
    };
    const idToken = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: KID })
      .sign(once?.foreignKey ? foreign.privateKey : privateKey);
    const answer: Record<string, unknown> = {
      access_token: accessToken,
      id_token: idToken,
      expires_in: expiresIn,
      token_type: 'Bearer',
      scope,
    };
    if (scope.split(' ').includes('offline_access')) {
      const refreshToken = randomId('rt_');
      refreshTokens.set(refreshToken, { user, clientId });
      answer.refresh_token = refreshToken;
    }
    return answer;
  }

  const invalidGrant = (description: string) => ({
    status: 403,
    body: { error: 'invalid_grant', error_description: description },
  });

  async function token(body: Record<string, unknown>): Promise<{ status: number; body: unknown }> {
    const clientId = String(body.client_id ?? '');
    if (!Object.hasOwn(options.clients, clientId) || options.clients[clientId] !== body.client_secret) {
      return { status: 401, body: { error: 'access_denied', error_description: 'Unauthorized' } };
    }
    const scope = String(body.scope ?? 'openid');
    switch (body.grant_type) {
      case 'authorization_code': {
        const grant = codes.get(String(body.code));
        codes.delete(String(body.code));
        if (!grant || grant.clientId !== clientId || grant.redirectUri !== body.redirect_uri) {
          return invalidGrant('Invalid authorization code');
        }
        const verifier = String(body.code_verifier ?? '');
        const challenge = createHash('sha256').update(verifier).digest('base64url');
        if (grant.codeChallenge !== undefined && grant.codeChallenge !== challenge) {
          return invalidGrant('Failed to verify code verifier');
        }
        return { status: 200, body: await issueTokens(grant.user, clientId, grant.scope, grant.nonce) };
      }
      case 'password':
      case 'http://auth0.com/oauth/grant-type/password-realm': {
        const user = users.find(
          (candidate) =>
            candidate.username === body.username &&
            candidate.password === body.password &&
            (body.realm === undefined || candidate.connection === body.realm),
        );
        if (!user) return invalidGrant('Wrong email or password.');
        return { status: 200, body: await issueTokens(user, clientId, scope) };
      }
      case 'refresh_token': {
        const entry = refreshTokens.get(String(body.refresh_token));
        if (!entry || entry.clientId !== clientId) return invalidGrant('Unknown or invalid refresh token.');
        // Like Auth0 without rotation: no new refresh token.
        const answer = await issueTokens(entry.user, clientId, 'openid');
        return { status: 200, body: answer };
      }
      case 'client_credentials': {
        if (body.audience !== `${url}/api/v2/`) return { status: 403, body: { error: 'access_denied' } };
        const managementToken = randomId('mgmt_');
        managementTokens.add(managementToken);
        return {
          status: 200,
          body: { access_token: managementToken, expires_in: 86_400, token_type: 'Bearer' },
        };
      }
      default:
        return { status: 400, body: { error: 'unsupported_grant_type' } };
    }
  }

  async function route(
    request: RecordedRequest,
    raw: { text: string; type: string },
    res: ServerResponse,
  ): Promise<void> {
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      if (body === undefined) {
        res.writeHead(status, headers);
        return void res.end();
      }
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    };
    const { method, path, query } = request;
    if (method === 'GET' && path === '/.well-known/jwks.json') return send(200, { keys: [jwk] });
    if (method === 'GET' && path === '/authorize') {
      const user = loginUser ?? users[0];
      if (!user || query.response_type !== 'code' || !query.client_id || !query.redirect_uri) {
        return send(400, { error: 'invalid_request' });
      }
      const code = randomId('code_');
      codes.set(code, {
        user,
        clientId: query.client_id,
        redirectUri: query.redirect_uri,
        nonce: query.nonce,
        codeChallenge: query.code_challenge,
        scope: query.scope ?? 'openid',
      });
      const back = new URL(query.redirect_uri);
      back.searchParams.set('code', code);
      if (query.state !== undefined) back.searchParams.set('state', query.state);
      res.writeHead(302, { location: back.href });
      return void res.end();
    }
    if (method === 'POST' && path === '/oauth/token') {
      const answer = await token(request.body ?? {});
      return send(answer.status, answer.body);
    }
    if (method === 'GET' && path === '/userinfo') {
      const accessToken = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
      const user = accessToken === undefined ? undefined : accessTokens.get(accessToken);
      if (!user) return send(401, { error: 'invalid_token' });
      return send(200, { sub: user.sub, ...user.claims });
    }
    if (method === 'GET' && path === '/v2/logout') {
      if (query.returnTo !== undefined) {
        res.writeHead(302, { location: query.returnTo });
        return void res.end();
      }
      return send(200, 'OK');
    }
    if (path.startsWith('/api/v2/')) return management(request, raw, send);
    send(404, { error: 'not_found' });
  }

  async function management(
    request: RecordedRequest,
    raw: { text: string; type: string },
    send: (status: number, body: unknown) => void,
  ): Promise<void> {
    const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    if (bearer === undefined || !managementTokens.has(bearer))
      return send(401, { statusCode: 401, message: 'Invalid token' });
    const { method, query } = request;
    const path = request.path.slice('/api/v2'.length);
    const userAt = /^\/users\/([^/]+)$/.exec(path);
    const userIndex = userAt ? users.findIndex((user) => user.sub === decodeURIComponent(userAt[1]!)) : -1;
    if (method === 'GET' && path === '/users') {
      const matches = query.q === undefined ? () => true : parseUserSearch(query.q);
      const perPage = Number(query.per_page ?? 50);
      const page = Number(query.page ?? 0);
      const found = users.filter((user) => matches(searchFields(user)));
      return send(200, found.slice(page * perPage, (page + 1) * perPage).map(managementView));
    }
    if (method === 'POST' && path === '/users') {
      const body = request.body ?? {};
      if (users.some((user) => user.email === body.email && user.connection === body.connection)) {
        return send(409, { statusCode: 409, error: 'Conflict', message: 'The user already exists.' });
      }
      const user: FakeUser = {
        sub: `auth0|${randomBytes(6).toString('hex')}`,
        username: String(body.username ?? body.email),
        password: String(body.password ?? ''),
        connection: String(body.connection),
        email: body.email === undefined ? undefined : String(body.email),
        appMetadata: body.app_metadata as Record<string, unknown> | undefined,
      };
      users.push(user);
      return send(201, managementView(user));
    }
    if (userAt && userIndex < 0)
      return send(404, { statusCode: 404, error: 'Not Found', message: 'The user does not exist.' });
    if (method === 'PATCH' && userAt) {
      const body = request.body ?? {};
      const before = users[userIndex]!;
      const updated: FakeUser = {
        ...before,
        ...(body.email === undefined ? {} : { email: String(body.email) }),
        ...(body.password === undefined ? {} : { password: String(body.password) }),
        ...(body.app_metadata === undefined
          ? {}
          : { appMetadata: body.app_metadata as Record<string, unknown> }),
      };
      users[userIndex] = updated;
      return send(200, managementView(updated));
    }
    if (method === 'DELETE' && userAt) {
      users.splice(userIndex, 1);
      return send(204, undefined);
    }
    if (method === 'POST' && path === '/jobs/users-imports') {
      const form = await new Request('http://fake/', {
        method: 'POST',
        headers: { 'content-type': raw.type },
        body: raw.text,
      }).formData();
      const file = form.get('users');
      const job: FakeImportJob = {
        id: randomId('job_'),
        type: 'users_import',
        status: 'pending',
        connection_id: String(form.get('connection_id')),
        users: typeof file === 'string' || file === null ? [] : (JSON.parse(await file.text()) as unknown[]),
      };
      importJobs.push(job);
      return send(202, { id: job.id, type: job.type, status: job.status, connection_id: job.connection_id });
    }
    const jobAt = /^\/jobs\/([^/]+)(\/errors)?$/.exec(path);
    const job = jobAt ? importJobs.find((candidate) => candidate.id === jobAt[1]) : undefined;
    if (method === 'GET' && jobAt && job === undefined)
      return send(404, { statusCode: 404, message: 'The job does not exist.' });
    if (method === 'GET' && jobAt?.[2]) return send(200, []);
    if (method === 'GET' && job)
      return send(200, { id: job.id, type: job.type, status: job.status, connection_id: job.connection_id });
    send(404, { error: 'not_found' });
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const parsed = new URL(req.url ?? '/', 'http://fake');
      const text = Buffer.concat(chunks).toString();
      const type = req.headers['content-type'] ?? '';
      let body: Record<string, unknown> | undefined;
      if (text !== '' && !type.startsWith('multipart/')) {
        body = type.includes('json')
          ? (JSON.parse(text) as Record<string, unknown>)
          : Object.fromEntries(new URLSearchParams(text));
      }
      const request: RecordedRequest = {
        method: req.method ?? 'GET',
        path: parsed.pathname,
        query: Object.fromEntries(parsed.searchParams),
        headers: req.headers,
        body,
      };
      requests.push(request);
      route(request, { text, type }, res).catch((error: Error) => {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: 'fake_auth0_failure', message: error.message }));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    requests,
    addUser: (user) => void users.push(user),
    loginAs(username) {
      loginUser = users.find((user) => user.username === username);
      if (!loginUser) throw new Error(`fake Auth0: no user ${username}`);
    },
    tamperNextToken(next) {
      tampering = next;
    },
    setExpiresIn(seconds) {
      expiresIn = seconds;
    },
    revokeRefreshTokens: () => refreshTokens.clear(),
    users,
    importJobs,
    revokeManagementTokens: () => managementTokens.clear(),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
