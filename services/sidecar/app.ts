/**
 * The sidecar's HTTP app: status routes, then every other request matched against the
 * permissions, evaluated, and forwarded (or, standalone, answered with the decision).
 */
import type { HttpBindings } from '@hono/node-server';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { Hono } from 'hono';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { bindingRoutes } from './binding-routes.ts';
import type { BindingsCrud } from './bindings-crud.ts';
import type { SidecarConfig } from './config.ts';
import { GENERIC_MESSAGE, NO_ROUTE_MESSAGE, rondError } from './errors.ts';
import { type Allowed, evaluateRequest } from './evaluate.ts';
import type { SidecarMetrics } from './metrics.ts';
import { standaloneOpenApiDocument } from './openapi.ts';
import type { PolicySet } from './policies.ts';
import { relay, type Upstream, UpstreamError } from './proxy.ts';
import { hasBody } from './request-body.ts';
import { filterResponse } from './response-filter.ts';
import type { RouteTable } from './router.ts';
import { statusRoutes } from './status-routes.ts';
import type { UserStore } from './user-store.ts';

export interface SidecarDeps {
  readonly config: SidecarConfig;
  readonly policies: PolicySet;
  /** Undefined until the permissions are loaded (fetched from the target service): 503 meanwhile. */
  readonly routes: () => RouteTable | undefined;
  readonly upstream: Upstream | undefined;
  readonly users: UserStore | undefined;
  readonly metrics: SidecarMetrics;
  /** Undefined with `EXPOSE_METRICS=false`. */
  readonly registry: Registry | undefined;
  /** Standalone `grant`/`revoke` routes, when `BINDINGS_CRUD_SERVICE_URL` is set. */
  readonly bindingsCrud?: BindingsCrud | undefined;
  readonly logger: Logger;
  readonly name: string;
  readonly version: string;
  readonly ready: () => Promise<boolean>;
}

type Env = { Bindings: HttpBindings };

export function createSidecarApp(deps: SidecarDeps): Hono<Env> {
  const { logger } = deps;
  const app = new Hono<Env>();
  app.route('/', statusRoutes(deps));
  if (deps.config.STANDALONE && deps.bindingsCrud)
    app.route(
      '/',
      bindingRoutes({
        crud: deps.bindingsCrud,
        headersToProxy: deps.config.ADDITIONAL_HEADERS_TO_PROXY.split(',').filter((h) => h !== ''),
        maxBodyBytes: deps.config.MAX_REQUEST_BODY_BYTES,
        logger,
      }),
    );
  if (deps.config.STANDALONE)
    app.get('/documentation/json', (c) => {
      const routes = deps.routes();
      if (!routes) return rondError(503, 'service not ready to work yet', 'permissions not loaded yet');
      const prefix = deps.config.PATH_PREFIX_STANDALONE;
      return c.json(standaloneOpenApiDocument(routes.routes, prefix, deps));
    });
  app.all('*', (c) => handle(deps, c.env, logger));
  app.onError((err) => {
    logger.error({ err }, 'unexpected error');
    return rondError(500, 'unexpected error', GENERIC_MESSAGE);
  });
  return app;
}

async function handle(deps: SidecarDeps, node: HttpBindings, log: Logger): Promise<Response> {
  const { config } = deps;
  const { incoming } = node;
  const rawUrl = incoming.url ?? '/';
  const url = originFormUrl(rawUrl);
  if (!url) return rondError(400, 'bad request', 'the request target must be a path');
  const method = (incoming.method ?? 'GET').toUpperCase();
  let escapedPath = rawUrl.split('?')[0] as string;

  if (config.STANDALONE) {
    if (!escapedPath.startsWith(`${config.PATH_PREFIX_STANDALONE}/`)) return notFound();
    escapedPath = escapedPath.replace(config.PATH_PREFIX_STANDALONE, '');
  }

  const routes = deps.routes();
  if (!routes)
    return rondError(
      503,
      'service not ready to work yet',
      'the service is not ready to work yet, try again in a few moments',
    );
  const match = routes.find(method, escapedPath);
  const isDocumentation =
    !config.STANDALONE && method === 'GET' && url.pathname === config.TARGET_SERVICE_OAS_PATH;
  if (isDocumentation && !match?.config.requestFlow.policyName)
    return forward(deps, node, undefined, undefined, log);
  if (!match || match.config.requestFlow.policyName === '') {
    log.info({ method, path: url.pathname, result: 'no route' }, 'policy decision');
    return rondError(403, '', NO_ROUTE_MESSAGE);
  }

  const evaluation = await evaluateRequest(deps, match, incoming, url, log);
  if (evaluation instanceof Response) return evaluation;
  if (config.STANDALONE) return new Response(null, { status: 200, headers: standaloneHeaders(evaluation) });
  return forward(deps, node, evaluation, match.config.responseFlow.policyName, log);
}

/** Rönd's standalone answer always holds the row-filter header: empty when every row passes. */
function standaloneHeaders({ setHeaders }: Allowed): Record<string, string> {
  return Object.fromEntries(Object.entries(setHeaders).map(([name, value]) => [name, value ?? '']));
}

async function forward(
  deps: SidecarDeps,
  { incoming, outgoing }: HttpBindings,
  allowed: Allowed | undefined,
  responsePolicy: string | undefined,
  log: Logger,
): Promise<Response> {
  const upstream = deps.upstream as Upstream;
  const started = performance.now();
  let response: Awaited<ReturnType<Upstream['send']>>;
  try {
    response = await upstream.send({
      method: incoming.method ?? 'GET',
      pathAndQuery: incoming.url ?? '/',
      rawHeaders: incoming.rawHeaders,
      setHeaders: allowed?.setHeaders ?? {},
      body: allowed?.bufferedBody ?? (hasBody(incoming) ? incoming : null),
      remoteAddress: incoming.socket.remoteAddress,
      host: incoming.headers.host,
    });
  } catch (err) {
    if (!(err instanceof UpstreamError)) throw err;
    log.error({ err: { message: err.message, reason: err.reason } }, 'upstream failed');
    deps.metrics.upstreamDuration.observe(
      { status: String(err.status) },
      (performance.now() - started) / 1000,
    );
    return rondError(err.status, err.message, err.status === 504 ? 'Gateway Timeout' : 'Bad Gateway');
  }
  deps.metrics.upstreamDuration.observe(
    { status: String(response.status) },
    (performance.now() - started) / 1000,
  );
  if (responsePolicy && allowed && response.status >= 200 && response.status < 300)
    return filterResponse(response, responsePolicy, allowed.parts, deps, log);
  const noBody = incoming.method === 'HEAD' || response.status === 204 || response.status === 304;
  relay(response, outgoing, !noBody);
  return RESPONSE_ALREADY_SENT;
}

/**
 * The URL of an origin-form request target (`/path?query`), or undefined for any other form.
 * Resolved against a base, `//host/x` would be a host and a path, and `//%zz` would throw.
 */
function originFormUrl(target: string): URL | undefined {
  if (!target.startsWith('/')) return undefined;
  try {
    return new URL(`http://sidecar${target}`);
  } catch {
    return undefined;
  }
}

function notFound(): Response {
  return rondError(404, 'not found', "The request doesn't match any known API");
}
