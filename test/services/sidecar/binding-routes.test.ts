/**
 * Rönd's standalone `grant`/`revoke` binding routes, against a CRUD service stand-in (a real HTTP
 * server on the MongoDB stand-in): the requests it receives, byte for byte where Rönd's tests pin
 * them, the bindings left in the collection, and the error answers.
 */
import * as assert from 'node:assert/strict';
import type { Collection } from 'mongodb';
import { test } from '../../support/suite.ts';
import { type CrudService, startCrudService } from './crud-service.ts';
import { type OnMongo, type Running, startOnMongo, startWith } from './harness.ts';

let bindings: Collection;
let crud: CrudService;
let sidecar: Running;
let setup: OnMongo;

test.before(async () => {
  setup = await startOnMongo({}, async (db) => {
    bindings = db.collection('bindings');
    crud = await startCrudService(bindings);
    return {
      STANDALONE: 'true',
      BINDINGS_CRUD_SERVICE_URL: crud.url,
      ADDITIONAL_HEADERS_TO_PROXY: 'miauserid,x-tenant',
    };
  });
  sidecar = setup.sidecar;
});

test.after(async () => {
  await setup?.close();
  await crud?.close();
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const GENERIC = 'Internal server error, please try again later';
const errorBody = (status: number, error: string) =>
  JSON.stringify({ error, message: GENERIC, statusCode: status });

function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${sidecar.base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

async function reset(docs: object[]): Promise<void> {
  await bindings.deleteMany({});
  if (docs.length > 0) await bindings.insertMany(docs.map((d) => ({ ...d })));
  crud.calls.length = 0;
}

/** The bindings in the collection, without `_id` (the stand-in ignores an `_id`-only projection). */
const stored = async () =>
  (await bindings.find({}).sort({ bindingId: 1 }).toArray()).map(({ _id, ...binding }) => binding);

// Rönd standalone_apis_test "performs correct API invocation insert bindings only on subject"
// and main_test "grant API with headers to proxy".
test('grant on a resource: the CRUD service gets the binding and the proxied headers', async () => {
  await reset([]);
  const response = await post(
    '/grant/bindings/resource/my-resource',
    {
      subjects: ['piero'],
      resourceId: 'projectID',
      roles: ['editor'],
      permissions: ['test-permission'],
      groups: ['test-group'],
    },
    { miauserid: 'admin-1', 'x-tenant': 't1', 'x-request-id': 'r-9', authorization: 'Bearer secret' },
  );
  assert.equal(response.status, 200);
  const { bindingId } = (await response.json()) as { bindingId: string };
  assert.match(bindingId, UUID);
  const [call] = crud.calls;
  assert.equal(call?.method, 'POST');
  assert.equal(
    call?.body,
    JSON.stringify({
      resource: { resourceType: 'my-resource', resourceId: 'projectID' },
      bindingId,
      groups: ['test-group'],
      subjects: ['piero'],
      permissions: ['test-permission'],
      roles: ['editor'],
    }),
  );
  assert.equal(call?.headers.miauserid, 'admin-1');
  assert.equal(call?.headers['x-tenant'], 't1');
  assert.equal(call?.headers['x-request-id'], 'r-9');
  assert.equal(call?.headers.authorization, undefined);
  assert.equal((await stored()).length, 1);
});

// Rönd standalone_apis_test "... insert bindings only on subject without resourceType request param".
test('grant without a resource: no resource member and no empty lists', async () => {
  await reset([]);
  const response = await post('/grant/bindings', {
    subjects: ['piero'],
    roles: ['editor'],
    groups: ['test-group'],
  });
  assert.equal(response.status, 200);
  const sent = JSON.parse(crud.calls[0]?.body ?? '') as Record<string, unknown>;
  assert.deepEqual(Object.keys(sent), ['bindingId', 'groups', 'subjects', 'roles']);
  assert.deepEqual(await stored(), [sent]);
});

// Rönd standalone_apis_test "400 on missing body fields", "400 on missing resourceId ...",
// "crud request return error", and main_test "grant API" (an empty body: 500 "EOF").
test('grant errors: 400 for missing fields, 500 for an empty body or a failing CRUD service', async () => {
  await reset([]);
  const missing = await post('/grant/bindings', { resourceId: 'my-resource' });
  assert.equal(missing.status, 400);
  assert.equal(
    await missing.text(),
    errorBody(400, 'missing body fields, one of groups, permissions, subjects or roles is required'),
  );
  const noId = await post('/grant/bindings/resource/my-resource', { subjects: ['a'], groups: ['b'] });
  assert.equal(await noId.text(), errorBody(400, 'missing resource id'));
  const empty = await post('/grant/bindings/resource/some-resource', '');
  assert.equal(empty.status, 500);
  assert.equal(await empty.text(), errorBody(500, 'EOF'));
  assert.equal(crud.calls.length, 0);
  crud.failNext('POST');
  const failed = await post('/grant/bindings', { subjects: ['piero'] });
  assert.equal(failed.status, 500);
  assert.equal(await failed.text(), errorBody(500, 'failed crud request for creating bindings'));
});

// Rönd standalone_apis_test "performs correct delete and patch APIs": subjects removed from the
// bindings that keep someone, bindings left empty deleted; the `_q` and `_l` Rönd sends.
test('revoke subjects on resources: patch the bindings that keep someone, delete the others', async () => {
  await reset([
    { bindingId: 'oasis', subjects: ['liam', 'noel'], groups: ['brutte_band'], resource: res('mike') },
    { bindingId: 'litfiba', subjects: ['piero', 'ghigo'], resource: res('mike') },
    { bindingId: 'solo', subjects: ['piero'], resource: res('mike') },
    { bindingId: 'elsewhere', subjects: ['piero'], resource: res('other') },
  ]);
  const response = await post('/revoke/bindings/resource/project', {
    subjects: ['piero', 'liam'],
    resourceIds: ['mike'],
  });
  assert.equal(response.status, 200);
  assert.equal(await response.text(), '{"deletedBindings":1,"modifiedBindings":2}');
  const [list, remove, patch] = crud.calls;
  assert.equal(list?.method, 'GET');
  assert.equal(list?.url.searchParams.get('_l'), '200');
  assert.equal(
    list?.url.searchParams.get('_q'),
    '{"$and":[{"resource.resourceId":{"$in":["mike"]},"resource.resourceType":"project"},{"$or":[{"subjects":{"$in":["piero","liam"]}}]}]}',
  );
  assert.equal(remove?.method, 'DELETE');
  assert.equal(remove?.url.searchParams.get('_q'), '{"bindingId":{"$in":["solo"]}}');
  assert.equal(patch?.url.pathname, '/bindings/bulk');
  assert.deepEqual(JSON.parse(patch?.body ?? ''), [
    { filter: { bindingId: 'oasis' }, update: { $set: { groups: ['brutte_band'], subjects: ['noel'] } } },
    { filter: { bindingId: 'litfiba' }, update: { $set: { groups: [], subjects: ['ghigo'] } } },
  ]);
  assert.deepEqual(
    (await stored()).map((b) => (b as { bindingId: string }).bindingId),
    ['elsewhere', 'litfiba', 'oasis'],
  );
});

// Rönd standalone_apis_test "performs correct delete query only on resource type and id" and
// "does not invoke delete API if not necessary".
test('revoke by resource only deletes every binding on it; no delete call when nothing empties', async () => {
  await reset([
    { bindingId: 'a', subjects: ['piero'], resource: res('mike') },
    { bindingId: 'b', groups: ['g'], resource: res('mike') },
  ]);
  const all = await post('/revoke/bindings/resource/project', { resourceIds: ['mike'] });
  assert.equal(await all.text(), '{"deletedBindings":2,"modifiedBindings":0}');
  assert.equal(
    crud.calls[0]?.url.searchParams.get('_q'),
    '{"resource.resourceId":{"$in":["mike"]},"resource.resourceType":"project"}',
  );
  assert.deepEqual(await stored(), []);

  await reset([{ bindingId: 'c', subjects: ['piero', 'ghigo'], resource: res('mike') }]);
  const some = await post('/revoke/bindings/resource/project', {
    subjects: ['piero'],
    resourceIds: ['mike'],
  });
  assert.equal(await some.text(), '{"deletedBindings":0,"modifiedBindings":1}');
  assert.deepEqual(
    crud.calls.map((c) => c.method),
    ['GET', 'PATCH'],
  );
});

// Rönd standalone_apis_test "performs correct delete and patch APIs without resourceType request param".
test('revoke groups without a resource type', async () => {
  await reset([
    { bindingId: 'g1', groups: ['litfiba'] },
    { bindingId: 'g2', groups: ['litfiba', 'oasis'] },
  ]);
  const response = await post('/revoke/bindings', { groups: ['litfiba'] });
  assert.equal(await response.text(), '{"deletedBindings":1,"modifiedBindings":1}');
  assert.equal(crud.calls[0]?.url.searchParams.get('_q'), '{"$or":[{"groups":{"$in":["litfiba"]}}]}');
  assert.deepEqual(await stored(), [{ bindingId: 'g2', groups: ['oasis'], subjects: [] }]);
});

// Rönd standalone_apis_test "400 on missing subjects and groups", "error on CRUD error",
// "error on CRUD delete API".
test('revoke errors: 400 with nothing to revoke, 500 naming the CRUD step that failed', async () => {
  await reset([{ bindingId: 'x', subjects: ['piero'], resource: res('mike') }]);
  const nothing = await post('/revoke/bindings', { subjects: [], groups: [] });
  assert.equal(nothing.status, 400);
  assert.equal(await nothing.text(), errorBody(400, 'empty subjects and groups lists or resource ids'));
  const noIds = await post('/revoke/bindings/resource/project', {});
  assert.equal(noIds.status, 400);
  crud.failNext('GET');
  const list = await post('/revoke/bindings', { subjects: ['piero'] });
  assert.equal(await list.text(), errorBody(500, 'failed crud request for finding bindings'));
  crud.failNext('DELETE');
  const remove = await post('/revoke/bindings', { subjects: ['piero'] });
  assert.equal(await remove.text(), errorBody(500, 'failed crud request for deleting unused bindings'));
  assert.equal((await stored()).length, 1);
});

test('a body above MAX_REQUEST_BODY_BYTES answers 413 without calling the CRUD service', async () => {
  const small = await startWith({
    STANDALONE: 'true',
    BINDINGS_CRUD_SERVICE_URL: crud.url,
    MAX_REQUEST_BODY_BYTES: '64',
  });
  try {
    crud.calls.length = 0;
    const response = await fetch(`${small.base}/grant/bindings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ subjects: ['x'.repeat(100)] }),
    });
    assert.equal(response.status, 413);
    assert.equal(await response.text(), errorBody(413, 'request body larger than 64 bytes'));
    assert.equal(crud.calls.length, 0);
  } finally {
    await small.close();
  }
});

test('the binding routes exist only standalone with BINDINGS_CRUD_SERVICE_URL', async () => {
  const without = await startWith({ STANDALONE: 'true' });
  try {
    assert.equal((await fetch(`${without.base}/grant/bindings`, { method: 'POST' })).status, 404);
  } finally {
    await without.close();
  }
});

function res(resourceId: string) {
  return { resourceType: 'project', resourceId };
}

test.run();
