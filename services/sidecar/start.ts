/** Builds the sidecar from its configuration and serves it. */
import { fileURLToPath } from 'node:url';
import type { Hono } from 'hono';
import { MongoClient } from 'mongodb';
import type { Logger } from 'pino';
import { Registry } from 'prom-client';
import { createServiceLogger, type RunningServer, readPackageInfo, serve } from '../kit/index.ts';
import { createSidecarApp } from './app.ts';
import { BindingsCrud } from './bindings-crud.ts';
import type { SidecarConfig } from './config.ts';
import { sidecarMetrics } from './metrics.ts';
import { mongoBuiltins } from './mongo-builtins.ts';
import {
  fetchPermissions,
  loadManualRoutes,
  loadPermissionsFile,
  type PermissionRoute,
} from './permissions.ts';
import { loadPolicies } from './policies.ts';
import { Upstream } from './proxy.ts';
import { RouteTable } from './router.ts';
import { UserStore } from './user-store.ts';

/** The name Rönd's status routes answer with. */
const SERVICE_NAME = 'rönd';

export interface StartOptions {
  readonly logger?: Logger;
  /** Default true; tests stop the sidecar with `close()` instead. */
  readonly handleSignals?: boolean;
}

export interface Sidecar extends RunningServer {
  /**
   * Resolves once the permissions are loaded (at once unless fetched from the target service);
   * rejects when the fetched document is unusable.
   */
  readonly loaded: Promise<void>;
}

export async function startSidecar(config: SidecarConfig, options: StartOptions = {}): Promise<Sidecar> {
  const logger = options.logger ?? createServiceLogger({ service: 'sidecar', level: config.LOG_LEVEL });
  const fileRoutes: PermissionRoute[] = [];
  if (config.API_PERMISSIONS_FILE_PATH)
    fileRoutes.push(...(await loadPermissionsFile(config.API_PERMISSIONS_FILE_PATH)));
  if (config.MANUAL_ROUTES_FILE_PATH)
    fileRoutes.push(...(await loadManualRoutes(config.MANUAL_ROUTES_FILE_PATH)));

  const mongo = config.MONGODB_URL
    ? new MongoClient(config.MONGODB_URL, { maxIdleTimeMS: config.MONGODB_CONNECTION_MAX_IDLE_TIME_MS })
    : undefined;
  const policies = await loadPolicies(config.OPA_MODULES_DIRECTORY, mongoBuiltins(mongo?.db(), logger));
  const users =
    mongo && config.ROLES_COLLECTION_NAME && config.BINDINGS_COLLECTION_NAME
      ? new UserStore(mongo.db(), config.ROLES_COLLECTION_NAME, config.BINDINGS_COLLECTION_NAME)
      : undefined;
  const upstream =
    config.TARGET_SERVICE_HOST && !config.STANDALONE
      ? new Upstream(config.TARGET_SERVICE_HOST, config.UPSTREAM_TIMEOUT_MS)
      : undefined;

  // Routes from files are checked before listening; a document fetched from the target service
  // arrives later (Rönd retries every second), and until then requests answer 503.
  const stopFetching = new AbortController();
  const oasPath = config.API_PERMISSIONS_FILE_PATH ? undefined : config.TARGET_SERVICE_OAS_PATH;
  let routes = oasPath ? undefined : new RouteTable(fileRoutes);
  const loaded =
    oasPath && config.TARGET_SERVICE_HOST
      ? fetchPermissions(config.TARGET_SERVICE_HOST, oasPath, logger, stopFetching.signal).then((fetched) => {
          routes = new RouteTable([...fetched, ...fileRoutes]);
          logger.info({ routes: fetched.length }, 'permissions fetched from the target service');
        })
      : Promise.resolve();
  loaded.catch((err: unknown) => {
    if (!stopFetching.signal.aborted) logger.error({ err }, 'permissions could not be loaded');
  });

  const registry = config.EXPOSE_METRICS ? new Registry() : undefined;
  const version =
    config.SERVICE_VERSION ?? readPackageInfo(fileURLToPath(new URL('.', import.meta.url))).version;
  const app = createSidecarApp({
    config,
    policies,
    routes: () => routes,
    upstream,
    users,
    metrics: sidecarMetrics(registry),
    registry,
    bindingsCrud: config.BINDINGS_CRUD_SERVICE_URL
      ? new BindingsCrud(config.BINDINGS_CRUD_SERVICE_URL)
      : undefined,
    logger,
    name: SERVICE_NAME,
    version,
    ready: async () => {
      if (!routes) return false;
      if (mongo) await mongo.db().command({ ping: 1 });
      return true;
    },
  });
  logger.info({ policies: policies.files, standalone: config.STANDALONE }, 'policies loaded');
  // The app reads Node's request (bindings); the kit serves any Hono app the same way.
  const server = await serve(app as unknown as Hono, {
    port: config.HTTP_PORT,
    logger,
    delayShutdownSeconds: config.DELAY_SHUTDOWN_SECONDS,
    handleSignals: options.handleSignals,
    onShutdown: [() => stopFetching.abort(), async () => upstream?.close(), async () => mongo?.close()],
  });
  return Object.assign(Object.create(null), {
    port: server.port,
    get draining() {
      return server.draining;
    },
    close: () => server.close(),
    loaded,
  }) as Sidecar;
}
