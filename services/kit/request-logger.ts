import { randomUUID } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type { Logger } from 'pino';

declare module 'hono' {
  interface ContextVariableMap {
    /** Set by {@link requestLogger}: the request id, also echoed in the `x-request-id` header. */
    requestId: string;
    /** Set by {@link requestLogger}: a child logger carrying `reqId`. */
    logger: Logger;
  }
}

export const REQUEST_ID_HEADER = 'x-request-id';

// A caller-supplied id ends up in logs: accept only a short token so it cannot forge log lines.
const ACCEPTED_REQUEST_ID = /^[\w.:-]{1,128}$/;

/**
 * Gives each request a pino child logger with a request id (the caller's `x-request-id` when it
 * is a plain token, else a new UUID), echoes the id in the response, and logs one line per
 * request when the answer is ready.
 */
export function requestLogger(logger: Logger): MiddlewareHandler {
  return async (c, next) => {
    const offered = c.req.header(REQUEST_ID_HEADER);
    const requestId = offered && ACCEPTED_REQUEST_ID.test(offered) ? offered : randomUUID();
    const child = logger.child({ reqId: requestId });
    c.set('requestId', requestId);
    c.set('logger', child);
    // Set before the answer exists: set after, Hono rebuilds the finished response around a
    // stream of its body, which costs more than the rest of a small request.
    c.header(REQUEST_ID_HEADER, requestId);
    const started = performance.now();
    await next();
    // A handler that returned a Response of its own did not take the prepared header.
    if (!c.res.headers.has(REQUEST_ID_HEADER)) c.header(REQUEST_ID_HEADER, requestId);
    const status = c.res.status;
    const entry = {
      method: c.req.method,
      path: c.req.path,
      status,
      ms: Math.round((performance.now() - started) * 10) / 10,
    };
    if (status >= 500) child.error(entry, 'request answered');
    else child.info(entry, 'request answered');
  };
}
