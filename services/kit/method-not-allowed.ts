import type { Hono, NotFoundHandler } from 'hono';
import { errorBody } from './http-error.ts';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/** Paths of routes on every path: middleware (a body limit on POST, …), not resources. */
const CATCH_ALL = new Set(['*', '/*']);

/**
 * The methods `app` has a route for at `path` (middleware, registered for every method or on
 * every path, aside). As in OpenAPI's path matching, a route written as exactly `path` hides the
 * templated ones: `/users/active` is its own resource, not `/users/{userId}` with id "active".
 * Hono answers HEAD with the GET route, so GET brings HEAD along.
 */
export function allowedMethods(app: Hono, path: string): string[] {
  const routes = METHODS.flatMap((method) =>
    app.router
      .match(method, path)[0]
      .map(([[, route]]) => route)
      .filter((route) => route.method !== 'ALL' && !CATCH_ALL.has(route.path)),
  );
  const concrete = routes.some((route) => route.path === path);
  const allowed = new Set(routes.filter((r) => !concrete || r.path === path).map((r) => r.method));
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
