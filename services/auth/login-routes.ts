import { createHash, randomBytes } from 'node:crypto';
import { Hono } from 'hono';
import { z } from 'zod';
import { HttpError } from '../kit/index.ts';
import type { Auth0Api, TokenGrant } from './auth0-api.ts';
import { selectClient } from './client-type.ts';
import type { AuthClient, AuthConfig } from './config.ts';
import { setSessionCookie } from './cookies.ts';
import { allowedRedirect } from './redirects.ts';
import type { SessionStore } from './store.ts';
import { readBody, validate } from './validate.ts';

export interface SessionSettings {
  readonly sessionSeconds: number;
  /** The scope that asks for a `sid` cookie instead of tokens (`SESSION_SCOPE`, `website`). */
  readonly sessionScope: string;
  readonly originalProtocolHeader: string;
}

export interface LoginDeps {
  readonly config: AuthConfig;
  readonly store: SessionStore;
  readonly auth0: Auth0Api;
  readonly settings: SessionSettings;
}

const param = z.string().min(1).max(2048);

export const authorizeQuery = z.object({
  connection: param.optional(),
  prompt: param.optional(),
  action: param.optional(),
  state: param.optional(),
});

export const tokenBody = z.discriminatedUnion('grant_type', [
  z.object({ grant_type: z.literal('authorization_code').optional(), code: param, state: param }),
  z.object({
    grant_type: z.literal('password'),
    username: param,
    password: param,
    connection: param.optional(),
  }),
]);

const randomToken = () => randomBytes(32).toString('base64url');

/** The connection asked for if the client supports it, else the client's default. */
function chooseConnection(client: AuthClient, asked: string | undefined): string | undefined {
  if (asked === undefined) return client.defaultConnection;
  if (client.supportedConnections.length > 0 && !client.supportedConnections.includes(asked)) {
    throw new HttpError(400, 'connection is not supported by this client');
  }
  return asked;
}

/** The client's scopes for Auth0: `openid` always (reference 3.0.2), without the session scope. */
function auth0Scope(client: AuthClient, sessionScope: string): string {
  return [...new Set(['openid', ...client.scopes.filter((scope) => scope !== sessionScope)])].join(' ');
}

/** `GET /authorize` and `POST /oauth/token`. */
export function loginRoutes({ config, store, auth0, settings }: LoginDeps): Hono {
  const client = selectClient(config);
  return new Hono()
    .get('/authorize', client, async (c) => {
      const client = c.get('authClient');
      const query = validate(authorizeQuery, c.req.query(), 'query');
      if (client.authorizeStateRequired && query.state === undefined) {
        throw new HttpError(400, 'state is required by this client');
      }
      // Without authorizeStateRequired the reference ignores a given state and makes its own.
      const state = client.authorizeStateRequired ? query.state! : randomToken();
      const codeVerifier = randomToken();
      const nonce = randomToken();
      await store.saveState(state, { clientType: client.clientType, codeVerifier, nonce });
      const target = new URL(`${client.auth0Url}/authorize`);
      const params: Record<string, string | undefined> = {
        response_type: 'code',
        client_id: client.clientId,
        redirect_uri: client.redirectUrl,
        scope: auth0Scope(client, settings.sessionScope),
        audience: client.audience,
        connection: chooseConnection(client, query.connection),
        prompt: query.prompt,
        action: query.action,
        state,
        nonce,
        code_challenge: createHash('sha256').update(codeVerifier).digest('base64url'),
        code_challenge_method: 'S256',
      };
      for (const [name, value] of Object.entries(params)) {
        if (value !== undefined) target.searchParams.set(name, value);
      }
      return c.redirect(target.href, 302);
    })
    .post('/oauth/token', client, async (c) => {
      const client = c.get('authClient');
      const redirectUri = c.req.query('redirectUri');
      // Checked first, so a refused redirect does not spend the state.
      const redirectTarget =
        redirectUri === undefined ? undefined : allowedRedirect(client, redirectUri, 'redirectUri');
      const body = validate(tokenBody, await readBody(c), 'body');
      let login: Awaited<ReturnType<Auth0Api['token']>>;
      if (body.grant_type === 'password') {
        const connection = chooseConnection(client, body.connection);
        const credentials = {
          username: body.username,
          password: body.password,
          scope: auth0Scope(client, settings.sessionScope),
          ...(client.audience === undefined ? {} : { audience: client.audience }),
        };
        // Auth0 picks the connection of a password grant only through the password-realm grant.
        const grant: TokenGrant =
          connection === undefined
            ? { grant_type: 'password', ...credentials }
            : {
                grant_type: 'http://auth0.com/oauth/grant-type/password-realm',
                realm: connection,
                ...credentials,
              };
        login = await auth0.token(client, grant, { status: 403, message: 'wrong username or password' });
      } else {
        const pending = await store.takeState(body.state);
        if (pending === undefined || pending.clientType !== client.clientType) {
          throw new HttpError(400, 'state is unknown, expired or already used');
        }
        const grant: TokenGrant = {
          grant_type: 'authorization_code',
          code: body.code,
          redirect_uri: client.redirectUrl,
          code_verifier: pending.codeVerifier,
        };
        login = await auth0.token(
          client,
          grant,
          { status: 401, message: 'Auth0 rejected the authorization code' },
          pending.nonce,
        );
      }
      const session = { ...login.tokens, clientType: client.clientType, claims: login.claims };
      if (client.scopes.includes(settings.sessionScope)) {
        const sid = randomToken();
        await store.saveSession(sid, session);
        setSessionCookie(c, sid, {
          client,
          maxAgeSeconds: settings.sessionSeconds,
          originalProtocolHeader: settings.originalProtocolHeader,
        });
        return redirectTarget === undefined ? c.json({}) : c.redirect(redirectTarget, 302);
      }
      await store.saveTokenSession(session);
      return redirectTarget === undefined ? c.json(login.tokens) : c.redirect(redirectTarget, 302);
    });
}
