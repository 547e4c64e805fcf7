import type { Hono, NotFoundHandler } from 'hono';
import { errorBody } from './http-error.ts';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/**
 * The methods `app` has a route for at `path` (middleware, registered for every method, aside).
 * Hono answers HEAD with the GET route, so GET brings HEAD along.
 */
export function allowedMethods(app: Hono, path: string): string[] {
  const allowed = new Set<string>();
  for (const method of METHODS) {
    const [matches] = app.router.match(method, path);
    if (matches.some(([[, route]]) => route.method !== 'ALL')) allowed.add(method);
  }
  if (allowed.has('GET')) allowed.add('HEAD');
  return METHODS.filter((m) => allowed.has(m));
}

/**
 * `app.notFound(...)`: a path the app knows, asked with another method, is a 405 with an `Allow`
 * header (platform.md); any other miss goes to `notFound`.
 *
 * @example
 *   app.notFound(methodNotAllowed(app, notFoundHandler));
 *   // DELETE /-/healthz → 405, Allow: GET, HEAD, {"statusCode":405,"error":"Method Not Allowed",…}
 */
export function methodNotAllowed(app: Hono, notFound: NotFoundHandler): NotFoundHandler {
  return (c) => {
    const allowed = allowedMethods(app, c.req.path);
    if (allowed.length === 0) return notFound(c);
    c.header('Allow', allowed.join(', '));
    return c.json(errorBody(405, `${c.req.method} is not allowed on ${c.req.path}`), 405);
  };
}
