/**
 * The permissions of the protected routes, as Rönd reads them: an OpenAPI document whose
 * operations carry `x-rond` (or the legacy `x-permission`), from a file (JSON or YAML) or fetched
 * from the target service, plus our manual routes file.
 */
import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { request } from 'undici';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';

/** Rönd's `x-rond` configuration of one operation. */
export interface RondConfig {
  readonly requestFlow: {
    readonly policyName: string;
    readonly generateQuery: boolean;
    readonly queryOptions: { readonly headerName: string };
    readonly preventBodyLoad: boolean;
  };
  readonly responseFlow: { readonly policyName: string };
  readonly options: {
    readonly ignoreTrailingSlash: boolean;
    /** Adds `input.user.resourcePermissionsMap` (`permission:resourceType:resourceId` → true). */
    readonly enableResourcePermissionsMapOptimization: boolean;
  };
}

/** One protected operation: OAS path template (`{id}` or `:id`, trailing `*`), method or `all`. */
export interface PermissionRoute {
  readonly path: string;
  readonly method: string;
  readonly config: RondConfig;
}

const xRond = z.object({
  requestFlow: z
    .object({
      policyName: z.string().default(''),
      generateQuery: z.boolean().default(false),
      queryOptions: z.object({ headerName: z.string().default('') }).default({ headerName: '' }),
      preventBodyLoad: z.boolean().default(false),
    })
    .default({
      policyName: '',
      generateQuery: false,
      queryOptions: { headerName: '' },
      preventBodyLoad: false,
    }),
  responseFlow: z.object({ policyName: z.string().default('') }).default({ policyName: '' }),
  options: z
    .object({
      ignoreTrailingSlash: z.boolean().default(false),
      enableResourcePermissionsMapOptimization: z.boolean().default(false),
    })
    .default({ ignoreTrailingSlash: false, enableResourcePermissionsMapOptimization: false }),
});

const xPermission = z.object({
  allow: z.string().default(''),
  responseFilter: z.object({ policy: z.string().default('') }).optional(),
  resourceFilter: z
    .object({
      rowFilter: z
        .object({ enabled: z.boolean().default(false), headerKey: z.string().default('') })
        .optional(),
    })
    .optional(),
  options: z
    .object({
      ignoreTrailingSlash: z.boolean().default(false),
      enableResourcePermissionsMapOptimization: z.boolean().default(false),
    })
    .optional(),
});

/** Rönd adapts `x-permission` to `x-rond`; an operation carrying both keeps its `x-rond`. */
function fromXPermission(v1: z.output<typeof xPermission>): RondConfig {
  return {
    requestFlow: {
      policyName: v1.allow,
      generateQuery: v1.resourceFilter?.rowFilter?.enabled ?? false,
      queryOptions: { headerName: v1.resourceFilter?.rowFilter?.headerKey ?? '' },
      preventBodyLoad: false,
    },
    responseFlow: { policyName: v1.responseFilter?.policy ?? '' },
    options: {
      ignoreTrailingSlash: v1.options?.ignoreTrailingSlash ?? false,
      enableResourcePermissionsMapOptimization: v1.options?.enableResourcePermissionsMapOptimization ?? false,
    },
  };
}

export class PermissionsError extends Error {
  override readonly name = 'PermissionsError';
}

/** The routes of an OpenAPI document (already parsed); operations without a permission are kept with an empty policy. */
export function routesFromOpenApi(document: unknown, source: string): PermissionRoute[] {
  const paths = (document as { paths?: unknown } | null)?.paths;
  if (typeof paths !== 'object' || paths === null) throw new PermissionsError(`${source}: no "paths" object`);
  const routes: PermissionRoute[] = [];
  for (const [path, operations] of Object.entries(paths)) {
    if (typeof operations !== 'object' || operations === null) continue;
    for (const [method, operation] of Object.entries(operations as Record<string, unknown>)) {
      if (typeof operation !== 'object' || operation === null) continue;
      const op = operation as Record<string, unknown>;
      const where = `${source}: paths["${path}"].${method}`;
      let config: RondConfig;
      if (op['x-rond'] !== undefined) config = parseWith(xRond, op['x-rond'], `${where}.x-rond`);
      else if (op['x-permission'] !== undefined)
        config = fromXPermission(parseWith(xPermission, op['x-permission'], `${where}.x-permission`));
      else config = parseWith(xRond, {}, where);
      routes.push({ path, method: method.toLowerCase(), config });
    }
  }
  return routes;
}

function parseWith<S extends z.ZodType>(schema: S, value: unknown, where: string): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw new PermissionsError(`${where}.${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`);
}

/** JSON or YAML (a JSON document is valid YAML, but JSON.parse is faster and stricter first). */
export function parseDocument(text: string, source: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    try {
      return parseYaml(text);
    } catch (err) {
      throw new PermissionsError(`${source}: neither JSON nor YAML: ${(err as Error).message}`);
    }
  }
}

export async function loadPermissionsFile(file: string): Promise<PermissionRoute[]> {
  const text = await readFile(file, 'utf8').catch((err: Error) => {
    throw new PermissionsError(`API_PERMISSIONS_FILE_PATH: cannot read ${file}: ${err.message}`);
  });
  return routesFromOpenApi(parseDocument(text, file), file);
}

/** As Rönd: asks the target service for its OpenAPI document every second until it answers 200. */
export async function fetchPermissions(
  host: string,
  oasPath: string,
  logger: Logger,
  signal?: AbortSignal,
): Promise<PermissionRoute[]> {
  const url = `http://${host}${oasPath}`;
  for (;;) {
    signal?.throwIfAborted();
    try {
      const response = await request(url, { signal });
      const text = await response.body.text();
      if (response.statusCode === 200) return routesFromOpenApi(parseDocument(text, url), url);
      logger.warn({ url, status: response.statusCode }, 'failed OAS fetch, retry in 1s');
    } catch (err) {
      if (err instanceof PermissionsError || signal?.aborted) throw err;
      logger.warn({ url, err: (err as Error).message }, 'failed OAS fetch, retry in 1s');
    }
    await sleep(1000, undefined, { signal });
  }
}

/** Our manual routes: `[{method, path, allow, rowFilter?: {headerName?}, responseFilter?}]`. */
const manualRoute = z.object({
  service: z.string().optional(),
  method: z.string().min(1),
  path: z.string().startsWith('/'),
  allow: z.string().min(1),
  rowFilter: z.union([z.boolean(), z.object({ headerName: z.string().default('') })]).optional(),
  responseFilter: z.string().optional(),
  ignoreTrailingSlash: z.boolean().default(false),
});

export const manualRoutesSchema = z.array(manualRoute);

export async function loadManualRoutes(file: string): Promise<PermissionRoute[]> {
  const text = await readFile(file, 'utf8').catch((err: Error) => {
    throw new PermissionsError(`MANUAL_ROUTES_FILE_PATH: cannot read ${file}: ${err.message}`);
  });
  const list = parseWith(manualRoutesSchema, parseDocument(text, file), `MANUAL_ROUTES_FILE_PATH ${file}`);
  return list.map((r) => ({
    path: r.path,
    method: r.method.toLowerCase(),
    config: {
      requestFlow: {
        policyName: r.allow,
        generateQuery: r.rowFilter !== undefined && r.rowFilter !== false,
        queryOptions: { headerName: typeof r.rowFilter === 'object' ? r.rowFilter.headerName : '' },
        preventBodyLoad: false,
      },
      responseFlow: { policyName: r.responseFilter ?? '' },
      options: {
        ignoreTrailingSlash: r.ignoreTrailingSlash,
        enableResourcePermissionsMapOptimization: false,
      },
    },
  }));
}
