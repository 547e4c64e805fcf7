import type { ErrorHandler, NotFoundHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { errorBody, HttpError } from './http-error.ts';
import { requestLog } from './observe-requests.ts';

/**
 * `app.onError(errorHandler)`: answers every error as `{statusCode, error, message}`.
 * HttpError and Hono's HTTPException keep their status; anything else is a 500 carrying the
 * error's message (the services' contract) and is logged with its stack. Hono calls it for
 * `Error` instances only: `observeRequests` answers any other thrown value with it (`createServiceApp`
 * installs both).
 */
export const errorHandler: ErrorHandler = (err, c) => {
  if (err instanceof HttpError) {
    return c.json(errorBody(err.status, err.message, err.errors), err.status);
  }
  if (err instanceof HTTPException) {
    const status = err.status as ContentfulStatusCode;
    return c.json(errorBody(status, err.message || errorBody(status, '').error), status);
  }
  requestLog(c)?.error({ err }, 'request failed');
  return c.json(errorBody(500, err.message || 'internal error'), 500);
};

/** `app.notFound(notFoundHandler)`: 404 with the same JSON body. */
export const notFoundHandler: NotFoundHandler = (c) =>
  c.json(errorBody(404, `no route for ${c.req.method} ${c.req.path}`), 404);
