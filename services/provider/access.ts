import { createHash } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { HttpError } from '../kit/index.ts';

/** The caller as the authentication service describes it (`GET /userinfo`, platform.md). */
export interface Caller {
  readonly id: string;
  readonly groups: readonly string[];
}

declare module 'hono' {
  interface ContextVariableMap {
    /** Set by {@link requireGroup}: the caller of a provider route. */
    caller: Caller;
  }
}

export interface AccessOptions {
  /** Base URL of our authentication service; `/userinfo` is asked there. */
  readonly authServiceUrl: string;
  readonly group: string;
  /** How long a session's answer is reused; 0 asks every time. */
  readonly cacheMs: number;
  readonly timeoutMs: number;
  /** The client-type header forwarded to the authentication service. */
  readonly clientTypeHeader?: string;
  /** Sent as the client type when the caller sends none (the auth service needs one, platform.md). */
  readonly defaultClientType?: string;
  readonly now?: () => number;
}

/** Headers that identify the session, forwarded as they came. */
const SESSION_HEADERS = ['cookie', 'authorization'] as const;
const MAX_CACHED_SESSIONS = 10_000;

/** `path` under the authentication service's base URL, which may carry a path of its own. */
function authServiceUrl(base: string, path: string): URL {
  return new URL(path, base.replace(/\/?$/, '/'));
}

/**
 * Resolves when the authentication service's `/-/ready` answers 2xx within `timeoutMs`: ready,
 * not only alive, since without its Redis it cannot tell who a session is.
 */
export async function pingAuthService(base: string, timeoutMs: number): Promise<void> {
  const response = await fetch(authServiceUrl(base, '-/ready'), { signal: AbortSignal.timeout(timeoutMs) });
  await response.body?.cancel();
  if (!response.ok) throw new Error(`the authentication service answered ${response.status}`);
}

/**
 * A middleware letting through only callers in `group`: the session (`Cookie`/`Authorization`)
 * is checked by the authentication service, whose answer is cached per session for `cacheMs`.
 * No session: 401; a session it refuses: 401; outside the group: 403; the service unreachable
 * or failing: 503.
 */
export function requireGroup(options: AccessOptions): MiddlewareHandler {
  const { group, cacheMs, timeoutMs, now = Date.now } = options;
  const clientTypeHeader = options.clientTypeHeader ?? 'client-type';
  const userinfoUrl = authServiceUrl(options.authServiceUrl, 'userinfo');
  const cache = new Map<string, { caller: Caller; until: number }>();

  async function userinfo(headers: Record<string, string>): Promise<Caller> {
    let response: Response;
    try {
      response = await fetch(userinfoUrl, { headers, signal: AbortSignal.timeout(timeoutMs) });
    } catch (error) {
      throw new HttpError(503, 'the authentication service is unavailable', { cause: error });
    }
    if (response.status === 401 || response.status === 403) {
      await response.body?.cancel();
      throw new HttpError(401, 'the session is not valid');
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new HttpError(503, `the authentication service answered ${response.status}`);
    }
    const body = (await response.json().catch(() => undefined)) as Record<string, unknown> | undefined;
    const id = body?.sub ?? body?.userId;
    const groups = body?.groups;
    if (typeof id !== 'string' || !Array.isArray(groups)) {
      throw new HttpError(503, 'the authentication service answered without a user and groups');
    }
    return { id, groups: groups.filter((g): g is string => typeof g === 'string') };
  }

  return async (c, next) => {
    const headers: Record<string, string> = {};
    for (const name of SESSION_HEADERS) {
      const value = c.req.header(name);
      if (value) headers[name] = value;
    }
    if (Object.keys(headers).length === 0)
      throw new HttpError(401, 'no session: send the sid cookie or a bearer token');
    const clientType = c.req.header(clientTypeHeader) ?? options.defaultClientType;
    if (clientType) headers[clientTypeHeader] = clientType;

    // The key is a hash, so the cache holds no session token.
    const key = createHash('sha256').update(JSON.stringify(headers)).digest('base64');
    const cached = cache.get(key);
    let caller: Caller;
    if (cached && cached.until > now()) caller = cached.caller;
    else {
      caller = await userinfo(headers);
      cache.delete(key);
      if (cache.size >= MAX_CACHED_SESSIONS) cache.delete(cache.keys().next().value!);
      if (cacheMs > 0) cache.set(key, { caller, until: now() + cacheMs });
    }
    if (!caller.groups.includes(group)) throw new HttpError(403, `the caller is not in the group "${group}"`);
    c.set('caller', caller);
    await next();
  };
}
