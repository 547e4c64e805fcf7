import type { Context } from 'hono';
import { Hono } from 'hono';
import { z } from 'zod';
import { HttpError } from '../kit/index.ts';
import type { Auth0Api } from './auth0-api.ts';
import { selectClient } from './client-type.ts';
import type { AuthClient, AuthConfig } from './config.ts';
import { clearSessionCookie, readSessionId } from './cookies.ts';
import type { SessionSettings } from './login-routes.ts';
import { allowedRedirect } from './redirects.ts';
import type { Session, SessionStore, TokenSet } from './store.ts';
import { userInfoFromClaims } from './userinfo.ts';
import { readBody, validate } from './validate.ts';

export interface SessionDeps {
  readonly config: AuthConfig;
  readonly store: SessionStore;
  readonly auth0: Auth0Api;
  readonly settings: SessionSettings;
  /** `AUTH0_LOGOUT_CLIENT_ID_ENABLED`. */
  readonly logoutWithClientId: boolean;
}

/**
 * Who calls: `Authorization: Bearer` first (the caller chose to send it; a cookie is sent by the
 * browser whatever the call), else the `sid` cookie; either way, whatever the client's scope.
 */
type Caller =
  | { readonly kind: 'cookie'; readonly sid: string }
  | { readonly kind: 'bearer'; readonly accessToken: string }
  | { readonly kind: 'anonymous' };

function caller(c: Context): Caller {
  const match = /^Bearer\s+(\S+)$/i.exec(c.req.header('authorization') ?? '');
  if (match) return { kind: 'bearer', accessToken: match[1]! };
  const sid = readSessionId(c);
  return sid === undefined ? { kind: 'anonymous' } : { kind: 'cookie', sid };
}

const JSON_TYPE = { 'content-type': 'application/json' } as const;

export const refreshBody = z.object({ refresh_token: z.string().min(1).max(4096).optional() });
export const logoutQuery = z.object({ redirect: z.string().min(1).max(2048).optional() });

/** `GET /userinfo`, `GET /users/me`, `POST /refreshtoken`, `GET /logout`. */
export function sessionRoutes({ config, store, auth0, settings, logoutWithClientId }: SessionDeps): Hono {
  const clientOf = (session: Session): AuthClient => {
    const client = config.clients.get(session.clientType);
    if (!client) throw new HttpError(401, 'the session belongs to a client that is no longer configured');
    return client;
  };

  /** New tokens for a session's refresh token; a rejection by Auth0 answers 401. */
  const refreshed = async (session: Session): Promise<Session> => {
    if (session.refreshToken === undefined) throw new HttpError(401, 'the session has no refresh token');
    const { tokens, claims } = await auth0.token(
      clientOf(session),
      { grant_type: 'refresh_token', refresh_token: session.refreshToken },
      { status: 401, message: 'Auth0 rejected the refresh token' },
    );
    return { ...session, ...tokens, claims };
  };

  /** A session's tokens renewed and saved; a refused refresh ends the session. */
  const renewCookieSession = async (sid: string): Promise<Session> => {
    const session = await store.readSession(sid);
    if (session === undefined) throw new HttpError(401, 'no session: log in again');
    const renewed = await refreshed(session).catch(async (error: unknown) => {
      if (error instanceof HttpError && error.status === 401) await store.deleteSession(sid);
      throw error;
    });
    await store.saveSession(sid, renewed);
    return renewed;
  };

  const userinfo = async (c: Context) => {
    const who = caller(c);
    if (who.kind === 'cookie') {
      const stored = await store.readSessionUser(who.sid);
      if (stored === undefined) throw new HttpError(401, 'no session: log in again');
      if (stored.expiresAt > Date.now()) return c.body(stored.body, 200, JSON_TYPE);
      // The access token expired: refreshed first (reference 1.0.0).
      const renewed = await renewCookieSession(who.sid);
      return c.json(userInfoFromClaims(renewed.claims, config.customClaimsNamespaces));
    }
    if (who.kind === 'bearer') {
      const stored = await store.readTokenUser(who.accessToken);
      if (stored !== undefined) return c.body(stored.body, 200, JSON_TYPE);
      // A token we did not issue: Auth0 says whose it is.
      const claims = await auth0.userinfo(c.get('authClient'), who.accessToken);
      if (claims === undefined) throw new HttpError(401, 'the access token is not valid');
      return c.json(userInfoFromClaims(claims, config.customClaimsNamespaces));
    }
    throw new HttpError(401, 'missing sid cookie or Authorization header');
  };

  const client = selectClient(config);
  return new Hono()
    .get('/userinfo', client, userinfo)
    .get('/users/me', client, userinfo)
    .post('/refreshtoken', client, async (c) => {
      const body = validate(refreshBody, await readBody(c), 'body');
      const who = caller(c);
      if (who.kind === 'cookie') {
        await renewCookieSession(who.sid);
        return c.json({});
      }
      if (who.kind === 'anonymous') throw new HttpError(401, 'missing sid cookie or Authorization header');
      const known = await store.readTokenSession(who.accessToken);
      const refreshToken = body.refresh_token ?? known?.refreshToken;
      if (refreshToken === undefined) throw new HttpError(400, 'refresh_token is required');
      const client = c.get('authClient');
      const renewed = await refreshed({
        ...(known ?? {
          clientType: client.clientType,
          claims: {},
          accessToken: who.accessToken,
          idToken: '',
        }),
        expireAt: new Date(0).toISOString(),
        refreshToken,
      });
      await store.saveTokenSession(renewed);
      await store.deleteTokenSession(who.accessToken);
      const tokens: TokenSet = {
        accessToken: renewed.accessToken,
        refreshToken: renewed.refreshToken,
        idToken: renewed.idToken,
        expireAt: renewed.expireAt,
      };
      return c.json(tokens);
    })
    .get('/logout', client, async (c) => {
      const client = c.get('authClient');
      const { redirect } = validate(logoutQuery, c.req.query(), 'query');
      const returnTo = redirect === undefined ? undefined : allowedRedirect(client, redirect, 'redirect');
      const who = caller(c);
      if (who.kind === 'cookie') await store.deleteSession(who.sid);
      if (who.kind === 'bearer') await store.deleteTokenSession(who.accessToken);
      clearSessionCookie(c, settings.originalProtocolHeader);
      // Auth0's own session lives in the browser: its logout has to be a browser redirect.
      const logout = new URL(`${client.auth0Url}/v2/logout`);
      if (returnTo !== undefined) logout.searchParams.set('returnTo', returnTo);
      if (logoutWithClientId) logout.searchParams.set('client_id', client.clientId);
      return c.redirect(logout.href, 302);
    });
}
