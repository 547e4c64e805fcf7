/**
 * Rönd's `find_one`/`find_many` builtins on MongoDB (the stand-in), through the real proxy: in
 * allow policies, in a row filter (partial evaluation) and in a response filter; documents as
 * canonical Extended JSON; a lookup that fails or finds nothing denies.
 */
import * as assert from 'node:assert/strict';
import { Double, Int32 } from 'mongodb';
import { test } from '../../support/suite.ts';
import { mongoEnv, type OnMongo, startOnMongo, startWith, UNREACHABLE_MONGODB_URL } from './harness.ts';

let setup: OnMongo;

test.before(async () => {
  setup = await startOnMongo({
    projects: [
      { projectId: 'p1', tenantId: 'acme' },
      { projectId: 'p2', tenantId: 'acme' },
      { projectId: 'p3', tenantId: 'globex' },
      { projectId: 'typed', tenantId: 'none', seats: new Int32(3), budget: new Double(2.5) },
    ],
    tenants: [{ tenantId: 'acme', name: 'Acme Corp' }],
  });
});

test.after(() => setup?.close());

const tenant = (name: string) => ({ miauserproperties: JSON.stringify({ tenant: name }) });
const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${setup.sidecar.base}${path}`, { headers });
const DENIED =
  '{"error":"RBAC policy evaluation failed","message":"You do not have permissions to access this feature, contact the project administrator for more information.","statusCode":403}';

// Rönd main_test "200 - integration find_one builtin" and handler_test TestPolicyWithMongoBuiltinIntegration
// "invokes target service" / "blocks for mongo not found".
test('find_one: the document found decides; nothing found denies without calling upstream', async () => {
  const allowed = await get('/tenant-projects/p1', tenant('acme'));
  assert.equal(allowed.status, 200);
  await allowed.text();
  assert.equal(setup.upstream.received.at(-1)?.url, '/tenant-projects/p1');
  const before = setup.upstream.received.length;
  const otherTenant = await get('/tenant-projects/p3', tenant('acme'));
  assert.equal(await otherTenant.text(), DENIED);
  const missing = await get('/tenant-projects/nope', tenant('acme'));
  assert.equal(await missing.text(), DENIED);
  assert.equal(setup.upstream.received.length, before);
});

// Rönd main_test "200 - integration find_many builtin".
test('find_many: every matching document, in the policy as a list', async () => {
  assert.equal((await get('/sibling-projects/p2', tenant('acme'))).status, 200);
  // one project only: count(projects) >= 2 fails
  assert.equal((await get('/sibling-projects/p3', tenant('globex'))).status, 403);
  assert.equal((await get('/sibling-projects/p3', tenant('acme'))).status, 403);
});

// Rönd core/partialevaluators_test "allow_with_find_one" in a query-generating policy.
test('a row filter built from find_many: one alternative per document, sent to the upstream', async () => {
  const response = await get('/project-rows', tenant('acme'));
  assert.equal(response.status, 200);
  await response.text();
  assert.deepEqual(JSON.parse(String(setup.upstream.received.at(-1)?.headers.acl_rows)), {
    $or: [{ $and: [{ projectId: { $eq: 'p1' } }] }, { $and: [{ projectId: { $eq: 'p2' } }] }],
  });
  // no project for the tenant: no row can pass, the request is answered without the upstream
  const before = setup.upstream.received.length;
  const none = await get('/project-rows', { ...tenant('initech'), 'content-type': 'application/json' });
  assert.equal(await none.text(), '[]');
  assert.equal(setup.upstream.received.length, before);
});

// Rönd handler_test "policy on user on response", with a lookup in the response policy.
test('a response filter with find_one: the looked-up value joins the body', async () => {
  const response = await get('/tenant-summary', { ...tenant('acme'), 'x-test-respond': 'json:{"items":2}' });
  assert.equal(response.status, 200);
  assert.deepEqual(await response.json(), { items: 2, tenantName: 'Acme Corp' });
});

// Rönd custom_builtins mongoclient_test "finds a document": bson.MarshalExtJSON(doc, canonical).
test('documents reach the policy as canonical Extended JSON ($oid, $numberInt, $numberDouble)', async () => {
  assert.equal((await get('/typed')).status, 200);
});

// Rönd handler_test "blocks for mongo error" and custom_builtins mongo_test "mongo client not set":
// the failed call is undefined, so the policy is not satisfied.
test('MongoDB unreachable, or not configured: the lookup fails and the request is denied', async () => {
  const dead = await startWith({
    TARGET_SERVICE_HOST: setup.upstream.host,
    ...mongoEnv(UNREACHABLE_MONGODB_URL),
  });
  const without = await startWith({ TARGET_SERVICE_HOST: setup.upstream.host });
  try {
    const before = setup.upstream.received.length;
    for (const base of [dead.base, without.base]) {
      const response = await fetch(`${base}/tenant-projects/p1`, { headers: tenant('acme') });
      assert.equal(response.status, 403, base);
      assert.equal(await response.text(), DENIED);
    }
    assert.equal(setup.upstream.received.length, before);
  } finally {
    await dead.close();
    await without.close();
  }
});

test.run();
