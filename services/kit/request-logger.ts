import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Context, MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import type { Logger } from 'pino';

declare module 'hono' {
  interface ContextVariableMap {
    /** Set by {@link requestLogger}: the request id, also echoed in the `x-request-id` header. */
    requestId: string;
    /** Set by {@link requestLogger}; read it with {@link requestLog}. */
    requestLog: () => Logger;
  }
}

export const REQUEST_ID_HEADER = 'x-request-id';

// A caller-supplied id ends up in logs: accept only a short token so it cannot forge log lines.
const ACCEPTED_REQUEST_ID = /^[\w.:-]{1,128}$/;

/**
 * Gives each request an id (the caller's `x-request-id` when it is a plain token, else a new
 * UUID), echoes it in the response, and logs one line per request when the answer is ready:
 * `reqId`, method, route (the pattern), path, status and ms.
 */
export function requestLogger(logger: Logger): MiddlewareHandler {
  return async (c, next) => {
    const offered = c.req.header(REQUEST_ID_HEADER);
    const requestId = offered && ACCEPTED_REQUEST_ID.test(offered) ? offered : randomUUID();
    c.set('requestId', requestId);
    let child: Logger | undefined;
    // Most requests never log but this line: their child logger is never made.
    c.set('requestLog', () => {
      child ??= logger.child({ reqId: requestId });
      return child;
    });
    const echoed = echoOnNode(c, requestId);
    // Set before the answer exists: set after, Hono rebuilds the finished response around a
    // stream of its body, which costs more than the rest of a small request.
    if (!echoed) c.header(REQUEST_ID_HEADER, requestId);
    const started = performance.now();
    await next();
    // A handler that returned a Response of its own did not take the prepared header.
    if (!echoed && !c.res.headers.has(REQUEST_ID_HEADER)) c.header(REQUEST_ID_HEADER, requestId);
    const status = c.res.status;
    const entry = {
      reqId: requestId,
      method: c.req.method,
      route: routePath(c, -1),
      path: c.req.path,
      status,
      ms: Math.round((performance.now() - started) * 10) / 10,
    };
    if (status >= 500) logger.error(entry, 'request answered');
    else logger.info(entry, 'request answered');
  };
}

/** The request's pino logger, a child carrying its `reqId`. */
export function requestLog(c: Context): Logger | undefined {
  return c.get('requestLog')?.();
}

/**
 * On Node (`@hono/node-server`), the id goes on the `ServerResponse`, which adds it to whatever
 * response the app makes: a second header through Hono turns the response's headers into a
 * `Headers` object, which costs a fifth of a small request (measured in the note of issue 17).
 */
function echoOnNode(c: Context, requestId: string): boolean {
  const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
  if (typeof outgoing?.setHeader !== 'function') return false;
  outgoing.setHeader(REQUEST_ID_HEADER, requestId);
  return true;
}
