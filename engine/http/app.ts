import { Hono } from 'hono';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { createServiceApp, HttpError, healthRoutes, type PackageInfo } from '../../services/kit/index.ts';
import { computeAggregates } from '../aggregate/compute.ts';
import { canonicalJson, decodeKeyOnly } from '../record/key.ts';
import type { Store } from '../store/types.ts';
import type { Topology } from '../topology/index.ts';
import { engineOpenApiDocument } from './openapi.ts';

export interface EngineApiOptions {
  readonly apiPrefix: string;
  readonly store: Store;
  readonly topology: Topology;
  /** Served as is by the reflection route: nodes, edges with readable filters, heads. */
  readonly reflection: unknown;
  readonly logger: Logger;
  readonly registry: Registry;
  readonly service: PackageInfo;
  /** Consumers assigned and store reachable (`engine.md` §9). */
  readonly ready: () => Promise<boolean>;
}

/**
 * The engine's HTTP API (`engine.md` §9): the items route under `apiPrefix`, reflection, and the
 * shared health, readiness and metrics routes and the OpenAPI document at the root. Errors are `{statusCode, error, message}`.
 */
export function createEngineApi(options: EngineApiOptions): Hono {
  const app = createServiceApp({
    logger: options.logger,
    registry: options.registry,
    health: healthRoutes({ ...options.service, ready: options.ready }),
  });
  const api = new Hono();

  api.get('/heads/:node/items/:key', async (c) => {
    const head = c.req.param('node');
    if (!options.topology.heads.includes(head)) throw new HttpError(404, `"${head}" is not a head node`);
    const key = decodeKeyOnly(c.req.param('key'));
    if (!key) throw new HttpError(400, 'key must be the base64url (unpadded) encoding of a JSON object');
    const ck = canonicalJson(key);
    const record = (await options.store.get(head, [ck])).get(ck);
    if (!record) throw new HttpError(404, `no ${head} record with key ${ck}`);
    const aggregates = await computeAggregates(options.store, options.topology, head, [record]);
    return c.json(aggregates.get(ck) as object);
  });

  api.get('/reflection/aggregation/graph', (c) => c.json(options.reflection as object));

  const document = engineOpenApiDocument(options.service, options.apiPrefix, options.topology.heads);
  app.get('/documentation/json', (c) => c.json(document));

  app.route(options.apiPrefix === '/' ? '/' : options.apiPrefix, api);
  return app;
}
