import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Context, ErrorHandler, MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { accessLineWriter } from './access-line.ts';
import { httpMetricsRecorder } from './metrics.ts';
import { ThrownValueError } from './thrown-values.ts';

declare module 'hono' {
  interface ContextVariableMap {
    /** Set by {@link observeRequests}: the request id, also echoed in the `x-request-id` header. */
    requestId: string;
    /** Set by {@link observeRequests}; read it with {@link requestLog}. */
    requestLog: () => Logger;
  }
}

export const REQUEST_ID_HEADER = 'x-request-id';

// A caller-supplied id ends up in logs: accept only a short token so it cannot forge log lines.
const ACCEPTED_REQUEST_ID = /^[\w.:-]{1,128}$/;

export interface ObserveRequestsOptions {
  readonly logger: Logger;
  /** Where `http_requests_total` and `http_request_duration_seconds` go; none: no metrics. */
  readonly registry?: Registry;
  /** Answers a thrown value that is not an `Error`: the app's `onError`, usually the kit's `errorHandler`. */
  readonly onError: ErrorHandler;
}

/**
 * What a service records of every request, in one middleware (one layer per request is cheaper
 * than three, measured in the note of issue 17):
 * - an id: the caller's `x-request-id` when it is a plain token, else a new UUID, echoed in the
 *   response;
 * - one log line when the answer is ready: `reqId`, method, route (the pattern), path, status, ms;
 * - the request counted and timed by method, route pattern (never the raw path, so label
 *   cardinality stays bounded) and status;
 * - a thrown value that is not an `Error` (a string, an object...) answered like an error, as a
 *   {@link ThrownValueError}: Hono hands only `Error`s to `onError` and re-throws anything else,
 *   which Node then answers with an empty 500.
 *
 * @example
 * app.use(observeRequests({ logger, registry, onError: errorHandler }));
 * app.get('/orders/:id', (c) => { requestLog(c)?.info('looking up'); return c.json({}); });
 */
export function observeRequests({ logger, registry, onError }: ObserveRequestsOptions): MiddlewareHandler {
  const recordMetrics = registry && httpMetricsRecorder(registry);
  const writeAccessLine = accessLineWriter(logger);
  return async (c, next) => {
    const offered = c.req.header(REQUEST_ID_HEADER);
    const requestId = offered && ACCEPTED_REQUEST_ID.test(offered) ? offered : randomUUID();
    c.set('requestId', requestId);
    let child: Logger | undefined;
    // Most requests never log but their line: their child logger is never made.
    c.set('requestLog', () => {
      child ??= logger.child({ reqId: requestId });
      return child;
    });
    const echoed = echoOnNode(c, requestId);
    // Set before the answer exists: set after, Hono rebuilds the finished response around a
    // stream of its body, which costs more than the rest of a small request.
    if (!echoed) c.header(REQUEST_ID_HEADER, requestId);
    const started = performance.now();
    try {
      await next();
    } catch (thrown) {
      // Hono answered every Error already; what is left is a thrown non-Error.
      if (thrown instanceof Error) throw thrown;
      c.res = await onError(new ThrownValueError(thrown), c);
    }
    const ms = performance.now() - started;
    // A handler that returned a Response of its own did not take the prepared header.
    if (!echoed && !c.res.headers.has(REQUEST_ID_HEADER)) c.header(REQUEST_ID_HEADER, requestId);
    const method = c.req.method;
    const route = routePath(c, -1);
    const status = c.res.status;
    recordMetrics?.(method, route, status, ms / 1000);
    writeAccessLine({
      reqId: requestId,
      method,
      route,
      path: c.req.path,
      status,
      ms: Math.round(ms * 10) / 10,
    });
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
