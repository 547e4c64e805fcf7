import type { Context } from 'hono';
import { Hono } from 'hono';
import { z } from 'zod';
import { HttpError } from '../kit/index.ts';
import type { ManagementClient } from './config.ts';
import { userSearchQuery } from './lucene.ts';
import type { ManagementAnswer, ManagementApi } from './management-api.ts';
import type { SessionStore } from './store.ts';
import { readBody, validate } from './validate.ts';

export interface UserRoutesDeps {
  readonly management: ManagementClient;
  readonly api: ManagementApi;
  readonly store: SessionStore;
}

const integer = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, { error: `expected an integer ${min}..${max}` })
    .transform(Number)
    .refine((n) => n >= min && n <= max, { error: `expected an integer ${min}..${max}` });

/** CRUD-like paging: `_l` is Auth0's `per_page` (default 25, Auth0 allows 100), `_sk` a skip. */
export const usersPagingQuery = z.object({
  _l: integer(1, 100).default(25),
  _sk: integer(0, 1000).default(0),
});

const connectionName = z.string().min(1).max(256);
const userId = z.string().min(1).max(512);
const jobId = z.string().regex(/^[\w-]{1,128}$/, { error: 'expected a job id' });
/** Auth0's user body, with `connection` optional (the management default fills it in). */
export const userBody = z.looseObject({ connection: connectionName.optional() });
export const passwordBody = z.strictObject({
  password: z.string().min(1).max(1024),
  connection: connectionName.optional(),
});
/** Auth0's users-imports fields, `connection` (a name) instead of `connection_id`. */
export const importBody = z.strictObject({
  users: z.array(z.record(z.string(), z.unknown())).min(1),
  connection: connectionName.optional(),
  upsert: z.boolean().optional(),
  external_id: z.string().max(128).optional(),
  send_completion_email: z.boolean().optional(),
});

const answer = (c: Context, { status, body }: ManagementAnswer) =>
  body === undefined ? c.body(null, status as 204) : c.json(body as object, status as 200);

/** The user management routes over Auth0's Management API v2 (auth0-client 1.0–3.4). */
export function userRoutes({ management, api, store }: UserRoutesDeps): Hono {
  /** The connection given if the management client supports it, else its default (reference 2.3.0). */
  const connectionFor = (given: string | undefined): string => {
    if (given !== undefined && management.connections.includes(given)) return given;
    if (given !== undefined && management.defaultConnection === undefined) {
      throw new HttpError(400, `connection ${given} is not supported`);
    }
    if (management.defaultConnection === undefined) {
      throw new HttpError(400, 'connection is required: the management client has no default connection');
    }
    return management.defaultConnection;
  };
  const userPath = (c: Context) =>
    `/users/${encodeURIComponent(validate(userId, c.req.param('userId'), 'path'))}`;

  return new Hono()
    .get('/users/active', async (c) => c.json((await store.activeUsers()).map((id) => ({ userId: id }))))
    .get('/users', async (c) => {
      const queries = c.req.queries();
      const paging = validate(usersPagingQuery, { _l: queries._l?.[0], _sk: queries._sk?.[0] }, 'query');
      const q = userSearchQuery({
        query: queries,
        aclRows: c.req.header('acl_rows'),
        connections: management.connections,
      });
      const query: Record<string, string> = {
        search_engine: 'v3',
        per_page: String(paging._l),
        page: String(Math.floor(paging._sk / paging._l)),
      };
      if (q !== '') query.q = q;
      return answer(c, await api.request('GET', '/users', { query }));
    })
    .post('/users', async (c) => {
      const body = validate(userBody, await readBody(c), 'body');
      if (body.connection !== undefined && !management.connections.includes(body.connection)) {
        throw new HttpError(400, `connection ${body.connection} is not supported`);
      }
      const json = { ...body, connection: body.connection ?? connectionFor(undefined) };
      return answer(c, await api.request('POST', '/users', { json }));
    })
    .post('/user/:userId', async (c) => {
      const body = validate(userBody, await readBody(c), 'body');
      const json = { ...body, connection: connectionFor(body.connection) };
      return answer(c, await api.request('PATCH', userPath(c), { json }));
    })
    .patch('/users/:userId', async (c) => {
      const body = validate(userBody, await readBody(c), 'body');
      return answer(c, await api.request('PATCH', userPath(c), { json: body }));
    })
    .delete('/users/:userId', async (c) => answer(c, await api.request('DELETE', userPath(c))))
    .post('/users/:userId/password', async (c) => {
      const body = validate(passwordBody, await readBody(c), 'body');
      const json = { password: body.password, connection: connectionFor(body.connection) };
      await api.request('PATCH', userPath(c), { json });
      return c.body(null, 204);
    })
    .post('/users/import', async (c) => {
      const raw = await readBody(c);
      if ('connection_id' in raw)
        throw new HttpError(400, 'connection_id is not accepted: give connection, a name');
      const body = validate(importBody, raw, 'body');
      const name = body.connection ?? management.defaultConnection;
      const connectionId = name === undefined ? undefined : management.connectionIds[name];
      if (connectionId === undefined) {
        throw new HttpError(400, 'connection must be a key of managementClient.supportedConnectionsMap');
      }
      const form = new FormData();
      form.set('users', new Blob([JSON.stringify(body.users)], { type: 'application/json' }), 'users.json');
      form.set('connection_id', connectionId);
      if (body.upsert !== undefined) form.set('upsert', String(body.upsert));
      if (body.external_id !== undefined) form.set('external_id', body.external_id);
      if (body.send_completion_email !== undefined)
        form.set('send_completion_email', String(body.send_completion_email));
      return answer(c, await api.request('POST', '/jobs/users-imports', { form }));
    })
    .get('/users/import/status/:jobId', async (c) => {
      const id = validate(jobId, c.req.param('jobId'), 'path');
      return answer(c, await api.request('GET', `/jobs/${id}`));
    })
    .get('/users/import/status/:jobId/errors', async (c) => {
      const id = validate(jobId, c.req.param('jobId'), 'path');
      return answer(c, await api.request('GET', `/jobs/${id}/errors`));
    });
}
