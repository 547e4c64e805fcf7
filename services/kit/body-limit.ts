import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { HttpError } from './http-error.ts';

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
