/**
 * Rönd's standalone binding routes: `POST /grant/bindings[/resource/{resourceType}]` creates a
 * binding, `POST /revoke/bindings[/resource/{resourceType}]` removes subjects and groups from the
 * matching bindings (deleting those left empty), both through the CRUD service.
 */
import { randomUUID } from 'node:crypto';
import { type Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { Logger } from 'pino';
import { type BindingPatch, type BindingsCrud, CrudError } from './bindings-crud.ts';
import { GENERIC_MESSAGE, rondError } from './errors.ts';
import type { Binding } from './user-store.ts';

/** Always passed on to the CRUD service besides `ADDITIONAL_HEADERS_TO_PROXY`, as in Rönd. */
const TRACING_HEADERS = ['x-request-id', 'x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host'];

export interface BindingRoutesOptions {
  readonly crud: BindingsCrud;
  /** `ADDITIONAL_HEADERS_TO_PROXY`, already split. */
  readonly headersToProxy: readonly string[];
  /** `MAX_REQUEST_BODY_BYTES`: a larger body answers 413 unread. */
  readonly maxBodyBytes: number;
  readonly logger: Logger;
}

interface GrantBody {
  resourceId?: string;
  subjects?: string[];
  groups?: string[];
  roles?: string[];
  permissions?: string[];
}

interface RevokeBody {
  subjects?: string[];
  groups?: string[];
  resourceIds?: string[];
}

export function bindingRoutes(options: BindingRoutesOptions): Hono {
  const grant = (c: Context) => handle(c, options, grantBinding);
  const revoke = (c: Context) => handle(c, options, revokeBindings);
  const limit = bodyLimit({
    maxSize: options.maxBodyBytes,
    onError: () => rondError(413, `request body larger than ${options.maxBodyBytes} bytes`, GENERIC_MESSAGE),
  });
  return new Hono()
    .use('/grant/*', limit)
    .use('/revoke/*', limit)
    .post('/grant/bindings', grant)
    .post('/grant/bindings/resource/:resourceType', grant)
    .post('/revoke/bindings', revoke)
    .post('/revoke/bindings/resource/:resourceType', revoke);
}

type Action<B> = (
  body: B,
  resourceType: string,
  crud: BindingsCrud,
  headers: Record<string, string>,
) => Promise<Response>;

async function handle<B>(c: Context, options: BindingRoutesOptions, action: Action<B>): Promise<Response> {
  const text = await c.req.text();
  let body: B;
  try {
    // Go's decoder says "EOF" for an empty body; Rönd answers its message as the error.
    if (text.trim() === '') throw new Error('EOF');
    body = JSON.parse(text) as B;
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      throw new Error('expected a JSON object');
  } catch (err) {
    return rondError(500, (err as Error).message, GENERIC_MESSAGE);
  }
  const headers: Record<string, string> = {};
  for (const name of new Set([...options.headersToProxy, ...TRACING_HEADERS])) {
    const value = c.req.header(name);
    if (value) headers[name] = value;
  }
  try {
    return await action(body, c.req.param('resourceType') ?? '', options.crud, headers);
  } catch (err) {
    if (!(err instanceof StepError)) throw err;
    options.logger.error({ err: { message: err.cause } }, 'failed crud request');
    return rondError(500, err.message, GENERIC_MESSAGE);
  }
}

/** A failed CRUD call, answered with Rönd's message for that step; the cause is logged. */
class StepError extends Error {
  override readonly name = 'StepError';
}

async function step<T>(message: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof CrudError) throw new StepError(message, { cause: err.message });
    throw err;
  }
}

const grantBinding: Action<GrantBody> = async (body, resourceType, crud, headers) => {
  if (resourceType !== '' && !body.resourceId) return rondError(400, 'missing resource id', GENERIC_MESSAGE);
  if (
    !nonEmpty(body.groups) &&
    !nonEmpty(body.permissions) &&
    !nonEmpty(body.subjects) &&
    !nonEmpty(body.roles)
  )
    return rondError(
      400,
      'missing body fields, one of groups, permissions, subjects or roles is required',
      GENERIC_MESSAGE,
    );
  // Rönd's field order, empty lists left out (Go's omitempty).
  const bindingId = randomUUID();
  const binding: Binding = {
    ...(resourceType === '' ? {} : { resource: { resourceType, resourceId: body.resourceId } }),
    bindingId,
    ...(nonEmpty(body.groups) ? { groups: body.groups } : {}),
    ...(nonEmpty(body.subjects) ? { subjects: body.subjects } : {}),
    ...(nonEmpty(body.permissions) ? { permissions: body.permissions } : {}),
    ...(nonEmpty(body.roles) ? { roles: body.roles } : {}),
  };
  await step('failed crud request for creating bindings', () => crud.create(binding, headers));
  return Response.json({ bindingId });
};

const revokeBindings: Action<RevokeBody> = async (body, resourceType, crud, headers) => {
  const subjects = body.subjects ?? [];
  const groups = body.groups ?? [];
  const byResource = resourceType !== '' && nonEmpty(body.resourceIds);
  if (!byResource && subjects.length === 0 && groups.length === 0)
    return rondError(400, 'empty subjects and groups lists or resource ids', GENERIC_MESSAGE);

  const found = await step('failed crud request for finding bindings', () =>
    crud.list(revokeQuery(resourceType, body.resourceIds ?? null, subjects, groups), headers),
  );
  const toPatch: BindingPatch[] = [];
  const toDelete: string[] = [];
  for (const binding of found) {
    // Without subjects or groups to remove, every binding on the resources goes.
    const left = {
      subjects: (binding.subjects ?? []).filter((s) => !subjects.includes(s)),
      groups: (binding.groups ?? []).filter((g) => !groups.includes(g)),
    };
    if (
      (subjects.length === 0 && groups.length === 0) ||
      (left.subjects.length === 0 && left.groups.length === 0)
    )
      toDelete.push(binding.bindingId);
    else toPatch.push({ bindingId: binding.bindingId, ...left });
  }
  let deleted = 0;
  if (toDelete.length > 0)
    deleted = await step('failed crud request for deleting unused bindings', () =>
      crud.deleteMany({ bindingId: { $in: toDelete } }, headers),
    );
  let modified = 0;
  if (toPatch.length > 0)
    modified = await step(
      `failed crud request to modify existing bindings. removed bindings: ${deleted}`,
      () => crud.patchBulk(toPatch, headers),
    );
  return Response.json({ deletedBindings: deleted, modifiedBindings: modified });
};

/** Rönd's query, keys in Go's (sorted) order so the CRUD service sees the same `_q`. */
function revokeQuery(
  resourceType: string,
  resourceIds: string[] | null,
  subjects: string[],
  groups: string[],
): object {
  const who: object[] = [];
  if (subjects.length > 0) who.push({ subjects: { $in: subjects } });
  if (groups.length > 0) who.push({ groups: { $in: groups } });
  if (resourceType === '') return { $or: who };
  const onResource = { 'resource.resourceId': { $in: resourceIds }, 'resource.resourceType': resourceType };
  return who.length === 0 ? onResource : { $and: [onResource, { $or: who }] };
}

function nonEmpty(list: readonly string[] | undefined): list is string[] {
  return Array.isArray(list) && list.length > 0;
}
