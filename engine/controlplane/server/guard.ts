import { timingSafeEqual } from 'node:crypto';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context, MiddlewareHandler } from 'hono';
import { HttpError } from '../../../services/kit/index.ts';
import type { Requester } from './requests.ts';

const REQUESTER = 'requester';

/**
 * Guards the requests that change state (every method but GET and HEAD): this page can stop
 * production pipelines. With a token, `Authorization: Bearer <token>` is required (401 without,
 * 403 with a wrong one). Always: the body must be declared JSON and a browser's `Origin` must be
 * this server, so that another site open in the operator's browser cannot post to it (a
 * cross-site JSON POST needs a CORS preflight, which this server never grants).
 */
export function changeGuard(token: string | null): MiddlewareHandler {
  return async (c, next) => {
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next();
    const origin = c.req.header('origin');
    if (origin && new URL(origin).host !== c.req.header('host')) {
      throw new HttpError(403, `cross-origin request from ${origin} refused`);
    }
    if (!c.req.header('content-type')?.startsWith('application/json')) {
      throw new HttpError(415, 'send Content-Type: application/json');
    }
    if (token !== null) {
      const given = /^Bearer (.+)$/.exec(c.req.header('authorization') ?? '')?.[1];
      if (given === undefined)
        throw new HttpError(401, 'this console requires a token: Authorization: Bearer <token>');
      if (!sameSecret(given, token)) throw new HttpError(403, 'wrong token');
    }
    const info = getConnInfo(c);
    c.set(REQUESTER, {
      remoteAddress: info.remote.address ?? 'unknown',
      userAgent: c.req.header('user-agent') ?? '',
      authenticated: token !== null,
    } satisfies Requester);
    return next();
  };
}

/** Who made this (guarded) request. */
export function requesterOf(c: Context): Requester {
  return c.get(REQUESTER) as Requester;
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
