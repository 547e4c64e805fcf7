import { Hono } from 'hono';
import type { z } from 'zod';
import { ERROR_BODY_SCHEMA, openApiSchema, type PackageInfo } from '../kit/index.ts';
import { authorizeQuery, tokenBody } from './login-routes.ts';
import { logoutQuery, refreshBody } from './session-routes.ts';
import { importBody, passwordBody, userBody, usersPagingQuery } from './user-routes.ts';

interface Operation {
  readonly method: 'get' | 'post' | 'patch' | 'delete';
  readonly path: string;
  readonly summary: string;
  /** The routes that pick a client by the `client-type` header. */
  readonly client?: boolean;
  readonly query?: z.ZodObject;
  readonly body?: z.ZodType;
  readonly success: number;
}

const OPERATIONS: readonly Operation[] = [
  {
    method: 'get',
    path: '/authorize',
    summary: 'Redirect to Auth0 to log in',
    client: true,
    query: authorizeQuery,
    success: 302,
  },
  {
    method: 'post',
    path: '/oauth/token',
    summary: 'Code or password grant: a sid cookie (website scope) or tokens',
    client: true,
    body: tokenBody,
    success: 200,
  },
  {
    method: 'get',
    path: '/userinfo',
    summary: 'The user of the sid cookie or bearer token',
    client: true,
    success: 200,
  },
  {
    method: 'get',
    path: '/users/me',
    summary: 'Same as /userinfo (kept for compatibility)',
    client: true,
    success: 200,
  },
  {
    method: 'post',
    path: '/refreshtoken',
    summary: 'New tokens from the refresh token',
    client: true,
    body: refreshBody,
    success: 200,
  },
  {
    method: 'get',
    path: '/logout',
    summary: 'End the session and log out at Auth0',
    client: true,
    query: logoutQuery,
    success: 302,
  },
  {
    method: 'get',
    path: '/users',
    summary: 'Search users (email, nickname, username, app_metadata.*, connection; acl_rows header)',
    query: usersPagingQuery,
    success: 200,
  },
  { method: 'post', path: '/users', summary: 'Create a user', body: userBody, success: 201 },
  { method: 'get', path: '/users/active', summary: 'Users with a live session', success: 200 },
  {
    method: 'post',
    path: '/user/{userId}',
    summary: 'Update a user (connection: the given one if supported, else the default)',
    body: userBody,
    success: 200,
  },
  { method: 'patch', path: '/users/{userId}', summary: 'Patch a user', body: userBody, success: 200 },
  { method: 'delete', path: '/users/{userId}', summary: 'Delete a user', success: 204 },
  {
    method: 'post',
    path: '/users/{userId}/password',
    summary: "Change a user's password",
    body: passwordBody,
    success: 204,
  },
  {
    method: 'post',
    path: '/users/import',
    summary: 'Start a users bulk import job',
    body: importBody,
    success: 202,
  },
  { method: 'get', path: '/users/import/status/{jobId}', summary: 'An import job', success: 200 },
  {
    method: 'get',
    path: '/users/import/status/{jobId}/errors',
    summary: "An import job's errors",
    success: 200,
  },
];

function operation(op: Operation) {
  const parameters: unknown[] = [];
  for (const name of op.path.match(/(?<=\{)\w+(?=\})/g) ?? []) {
    parameters.push({ name, in: 'path', required: true, schema: { type: 'string' } });
  }
  if (op.client) {
    parameters.push({ name: 'client-type', in: 'header', required: true, schema: { type: 'string' } });
  }
  if (op.query) {
    const { properties = {}, required = [] } = openApiSchema(op.query) as {
      properties?: Record<string, unknown>;
      required?: string[];
    };
    for (const [name, schema] of Object.entries(properties)) {
      parameters.push({ name, in: 'query', required: required.includes(name), schema });
    }
  }
  const errorContent = { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } };
  return {
    summary: op.summary,
    parameters,
    ...(op.body && {
      requestBody: {
        // A body whose every field is optional may be left out (`/refreshtoken` with a cookie).
        required: (openApiSchema(op.body) as { required?: string[] }).required !== undefined,
        content: {
          'application/json': { schema: openApiSchema(op.body) },
          'application/x-www-form-urlencoded': { schema: openApiSchema(op.body) },
        },
      },
    }),
    responses: {
      [op.success]: { description: 'Success' },
      default: { description: 'Error', content: errorContent },
    },
  };
}

/** The OpenAPI 3 document of the service's routes, from the zod schemas that validate them. */
export function openApiDocument(info: PackageInfo) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of OPERATIONS) {
    paths[op.path] = { ...paths[op.path], [op.method]: operation(op) };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'streamfold auth (auth0-client 3.8)', version: info.version },
    paths,
    components: {
      schemas: {
        Error: ERROR_BODY_SCHEMA,
      },
    },
  };
}

/** `GET /documentation/json` (reference 3.2.2). */
export function openApiRoute(info: PackageInfo): Hono {
  const document = openApiDocument(info);
  return new Hono().get('/documentation/json', (c) => c.json(document));
}
