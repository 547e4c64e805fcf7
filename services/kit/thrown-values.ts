import type { MiddlewareHandler } from 'hono';

/** A thrown value that is not an `Error` (a string, an object...), kept as `cause`. */
export class ThrownValueError extends Error {
  constructor(readonly value: unknown) {
    super(describeThrown(value), { cause: value });
    this.name = 'ThrownValueError';
  }
}

/**
 * Hono hands only `Error` instances to `onError` and re-throws anything else, which Node then
 * answers with an empty 500. This middleware wraps such a value (thrown, or a rejection) in a
 * {@link ThrownValueError}, so the error handler answers it like any error: the JSON 500 with the
 * value as message. Install it before the routes; `createServiceApp` does.
 */
export const wrapThrownValues: MiddlewareHandler = async (_c, next) => {
  try {
    await next();
  } catch (thrown) {
    throw thrown instanceof Error ? thrown : new ThrownValueError(thrown);
  }
};

/** A string as is, an error-like object's `message`, anything else as JSON (or `String()`). */
function describeThrown(value: unknown): string {
  if (typeof value === 'string') return value;
  const message = (value as { message?: unknown } | null)?.message;
  if (typeof message === 'string') return message;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value); // a BigInt or a circular object
  }
}
