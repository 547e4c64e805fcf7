import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit as honoBodyLimit } from 'hono/body-limit';
import { HttpError } from './http-error.ts';

export interface BodyLimitOptions {
  readonly maxSize: number;
  readonly onError: (c: Context) => Response | Promise<Response>;
}

/**
 * Hono's `bodyLimit`, answering the same, without its cost for a body of declared length.
 *
 * Hono's middleware first asks for `c.req.raw.body`. On `@hono/node-server` that one property
 * turns the request into a real `Request` (an `AbortController`, a web `ReadableStream` over the
 * socket, undici's `Request` constructor), and every later body read goes through web streams:
 * about a third of the service's CPU per request in the REST-to-broker benchmark
 * (bench/README.md § Kafka mode). For a `Content-Length` body without `Transfer-Encoding`, Hono's
 * middleware only compares the declared length anyway (Node's parser never reads more than it), so
 * that case is decided here from the header, and the body stays on node-server's direct read.
 * Anything else (a chunked body, counted as it streams in) goes to Hono's middleware.
 */
export function bodyLimit(options: BodyLimitOptions): MiddlewareHandler {
  const streamed = honoBodyLimit(options);
  const { maxSize, onError } = options;
  return async function limitDeclaredBody(c, next) {
    const method = c.req.method;
    // No body to limit (Hono's middleware: `raw.body` is null for these).
    if (method === 'GET' || method === 'HEAD') return next();
    const declared = c.req.header('content-length');
    if (declared === undefined || c.req.header('transfer-encoding') !== undefined) return streamed(c, next);
    return Number.parseInt(declared || '0', 10) > maxSize ? onError(c) : next();
  };
}

/**
 * A 413 once a request body passes `maxBytes`, counted as it streams in (a declared
 * Content-Length over the limit is refused before any byte is read), so a body far over the
 * limit, however slowly it comes, is never held in memory.
 */
export function limitBody(maxBytes: number): MiddlewareHandler {
  return bodyLimit({
    maxSize: maxBytes,
    onError: (c) => {
      // The rest of the body is never read: the client must not reuse this connection.
      c.header('connection', 'close');
      throw new HttpError(413, `the body is larger than ${maxBytes} bytes`);
    },
  });
}
