import type { Context } from 'hono';
import { BadRequestError } from './errors.ts';

/** What a route's adapter and its key/value/header functions see of an HTTP request. */
export interface Rest2BrokerRequest {
  readonly method: string;
  readonly path: string;
  /** Path parameters of the route pattern, e.g. `{ id }` for `/orders/:id`. */
  readonly params: Readonly<Record<string, string>>;
  readonly query: Readonly<Record<string, string>>;
  readonly headers: Headers;
  /** The request body exactly as received. */
  readonly body: Buffer;
  /**
   * The body as JSON: the validated value (zod output) when the route has a schema, else parsed
   * on first call. Throws a 400 BadRequestError when the body is not JSON.
   */
  json(): unknown;
}

/** `validated` carries the schema's output when the route validated the body already. */
export function toRest2BrokerRequest(
  c: Context,
  body: Buffer,
  validated?: { value: unknown },
): Rest2BrokerRequest {
  let parsed = validated;
  return {
    method: c.req.method,
    path: c.req.path,
    params: c.req.param(),
    query: c.req.query(),
    headers: c.req.raw.headers,
    body,
    json() {
      parsed ??= { value: parseJsonBody(body) };
      return parsed.value;
    },
  };
}

export function parseJsonBody(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch (error) {
    throw new BadRequestError(400, `request body is not valid JSON: ${(error as Error).message}`);
  }
}
