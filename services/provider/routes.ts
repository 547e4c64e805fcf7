import { Hono } from 'hono';
import { z } from 'zod';
import { HttpError } from '../kit/index.ts';
import { CONSOLE_VERSION_HEADER, speaks108 } from './console-version.ts';
import { SCHEMAS } from './provider-schema.ts';
import type { Providers } from './providers.ts';
import { parseOr400 } from './validation.ts';

export const PROVIDERS_PATH = '/api/backend/tenants/:tenantId/providers';
export const PROVIDER_PATH = `${PROVIDERS_PATH}/:providerId`;

/** MongoDB takes a skip that fits 32 bits from every driver; beyond, the query fails (a 500). */
const MAX_SKIP = 2_147_483_647;

/**
 * A whole number written in decimal digits. `z.coerce.number()` would take `?skip=` as 0 and
 * `?limit=0x10` as 16: a query the client got wrong must be a 400, not another page.
 */
const queryInteger = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, 'must be a whole number in decimal digits')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));

export const pageQuerySchema = z.strictObject({
  skip: queryInteger(0, MAX_SKIP).default(0),
  limit: queryInteger(1, 200).default(25),
});

/** Header of a list answer: how many providers the tenant has across all pages. */
export const TOTAL_COUNT_HEADER = 'x-total-count';

/** The JSON body: 415 for another content type, 400 when it does not parse. */
async function jsonBody(request: Request): Promise<unknown> {
  const type = request.headers.get('content-type') ?? '';
  if (!/^application\/([\w.+-]+\+)?json\b/i.test(type)) {
    throw new HttpError(415, 'the body must be application/json');
  }
  try {
    return await request.json();
  } catch {
    throw new HttpError(400, 'the body is not valid JSON');
  }
}

/** The provider routes; access control is mounted in front of them by the app. */
export function providerRoutes(providers: Providers, defaultConsoleVersion: string): Hono {
  const schemas = (header: string | undefined) =>
    speaks108(header, defaultConsoleVersion) ? SCHEMAS.current : SCHEMAS.before108;

  return new Hono()
    .post(PROVIDERS_PATH, async (c) => {
      const { create } = schemas(c.req.header(CONSOLE_VERSION_HEADER));
      const body = parseOr400(create, await jsonBody(c.req.raw));
      return c.json(await providers.create(c.req.param('tenantId'), body), 201);
    })
    .get(PROVIDERS_PATH, async (c) => {
      const page = parseOr400(pageQuerySchema, c.req.query());
      const { items, total } = await providers.list(c.req.param('tenantId'), page);
      c.header(TOTAL_COUNT_HEADER, String(total));
      return c.json(items);
    })
    .get(PROVIDER_PATH, async (c) =>
      c.json(await providers.get(c.req.param('tenantId'), c.req.param('providerId'))),
    )
    .patch(PROVIDER_PATH, async (c) => {
      const { patch } = schemas(c.req.header(CONSOLE_VERSION_HEADER));
      const body = parseOr400(patch, await jsonBody(c.req.raw));
      return c.json(await providers.update(c.req.param('tenantId'), c.req.param('providerId'), body));
    })
    .delete(PROVIDER_PATH, async (c) => {
      await providers.delete(c.req.param('tenantId'), c.req.param('providerId'));
      return c.body(null, 204);
    });
}
