/**
 * The request flow through the real sidecar in front of a recording upstream: route matching,
 * the policy input, allow/deny and the error bodies byte for byte.
 */
import * as assert from 'node:assert/strict';
import { test } from '../../support/suite.ts';
import { json, rawRequest, sidecarForSuite } from './harness.ts';

const shared = sidecarForSuite(test);

const NO_ROUTE = '{"error":"","message":"User is not allowed to request the API","statusCode":403}';
const DENIED =
  '{"error":"RBAC policy evaluation failed","message":"You do not have permissions to access this feature, contact the project administrator for more information.","statusCode":403}';

const call = shared.call;

function lastReceived() {
  return shared.upstream.received.at(-1);
}

// Rönd main_test "api permissions file path with allow all policy": allowed, proxied unchanged.
test('allowed: forwarded with method, path and query; upstream status, headers and body relayed', async () => {
  const before = shared.upstream.received.length;
  const r = await call('/open?x=1&x=2');
  assert.equal(r.status, 200);
  assert.deepEqual(JSON.parse(r.text), { method: 'GET', url: '/open?x=1&x=2', body: '' });
  assert.equal(r.headers.get('x-upstream'), 'yes');
  assert.deepEqual(r.headers.getSetCookie(), ['a=1', 'b=2']);
  assert.equal(shared.upstream.received.length, before + 1);
});

// Rönd opamiddleware_test "documentation request without permission" → our spec: 403 for no route.
test('no matching route, or a route without policy: 403 with the spec body, upstream not called', async () => {
  const before = shared.upstream.received.length;
  for (const path of ['/unknown', '/no-policy', '/open/extra']) {
    const r = await call(path);
    assert.equal(r.status, 403, path);
    assert.equal(r.text, NO_ROUTE);
    assert.equal(r.headers.get('content-type'), 'application/json');
  }
  const wrongMethod = await call('/open', { method: 'POST' });
  assert.equal(wrongMethod.status, 403);
  // Rönd main_test "x-permissions is empty": an empty x-permission is no policy, not forwarded
  const empty = await call('/empty-permission', { method: 'POST', body: '{}' });
  assert.equal(empty.text, NO_ROUTE);
  assert.equal(shared.upstream.received.length, before);
});

// Rönd handler_test "policy evaluation returns false" → 403 with RBAC policy evaluation failed.
test('denied by the policy: 403 with the byte-exact body, upstream not called', async () => {
  const before = shared.upstream.received.length;
  const r = await call('/closed');
  assert.equal(r.status, 403);
  assert.equal(r.text, DENIED);
  assert.equal(shared.upstream.received.length, before);
});

// Ours (issue 16): Rönd handler_test "filter query return not allow" answers such errors 403.
test('an evaluation error answers 500 JSON and is not forwarded', async () => {
  const before = shared.upstream.received.length;
  const r = await call('/crash');
  assert.equal(r.status, 500);
  assert.equal(
    r.text,
    '{"error":"policy evaluation failed","message":"Internal server error, please try again later","statusCode":500}',
  );
  assert.equal(shared.upstream.received.length, before);
});

// Rönd handler_test "user groups from header" / "allow_admins"-like tests.
test('user groups from miausergroups (comma-separated)', async () => {
  assert.equal((await call('/admin', { headers: { miausergroups: 'guest,admin' } })).status, 200);
  assert.equal((await call('/admin', { headers: { miausergroups: 'guest' } })).text, DENIED);
  assert.equal((await call('/admin')).text, DENIED);
  // method `all`: every method of the path goes through the same policy
  const post = await call('/admin', { method: 'POST', headers: { miausergroups: 'admin' }, body: 'x' });
  assert.equal(post.status, 200);
  assert.equal(lastReceived()?.body, 'x');
  assert.equal((await call('/admin', { method: 'DELETE' })).text, DENIED);
});

// Rönd opaevaluator_test (processResults): exactly `true`, or a non-empty collection, allows.
test('allow reading: a non-empty set allows; an empty set or a non-boolean value denies', async () => {
  assert.equal((await call('/non-empty-set')).status, 200);
  assert.equal((await call('/empty-set')).text, DENIED);
  assert.equal((await call('/not-boolean')).text, DENIED);
});

// Rönd get_header_test: case-insensitive lookup, "" when absent.
test('get_header builtin: any case, absent header denied', async () => {
  assert.equal((await call('/keys', { headers: { 'X-API-KEY': 'k' } })).status, 200);
  assert.equal((await call('/keys')).status, 403);
});

// Rönd handler_test TestPolicyEvaluation "policy on request header works correctly" / "without get_header".
test('input.request.headers uses Go canonical names with arrays of values', async () => {
  assert.equal((await call('/team', { headers: { 'x-team': 'blue' } })).status, 200);
  assert.equal((await call('/team', { headers: { 'x-team': 'red' } })).status, 403);
});

// Rönd main_test "api permissions file path with nested routes with pathParams access".
test('path params from {orderId}; static beats parameter; properties from miauserproperties', async () => {
  const props = JSON.stringify({ order: 'o-7' });
  assert.equal((await call('/orders/o-7', { headers: { miauserproperties: props } })).status, 200);
  assert.equal((await call('/orders/o-8', { headers: { miauserproperties: props } })).status, 403);
  // `/orders/mine` is static and allow_all, though `{orderId}` would deny it
  assert.equal((await call('/orders/mine')).status, 200);
  assert.equal((await call('/orders/o-7', { method: 'DELETE' })).text, DENIED);
});

// Rönd handler_test "fails when user properties header is not valid JSON" → 500.
test('bad miauserproperties JSON: 500 with Rönd body', async () => {
  const r = await call('/open', { headers: { miauserproperties: '{nope' } });
  assert.equal(r.status, 500);
  assert.equal(
    r.text,
    '{"error":"failed to get input user","message":"Internal server error, please try again later","statusCode":500}',
  );
});

// Rönd input_test: JSON body of writes is in input.request.body and still reaches upstream.
test('JSON request body in the input and forwarded unchanged; bad JSON body 500', async () => {
  const small = JSON.stringify({ amount: 10 });
  const ok = await call('/payments', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: small,
  });
  assert.equal(ok.status, 200);
  assert.equal(lastReceived()?.body, small);
  assert.equal(lastReceived()?.headers['content-length'], String(small.length));
  const big = await call('/payments', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"amount":1000}',
  });
  assert.equal(big.text, DENIED);
  const bad = await call('/payments', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{x',
  });
  assert.equal(bad.status, 500);
  assert.equal(
    bad.text,
    '{"error":"failed to create rond input","message":"Internal server error, please try again later","statusCode":500}',
  );
});

// Rönd sdk/rondinput/http input_test (query as url.Values) and CLIENT_TYPE_HEADER_KEY in handler_test.
test('query values as arrays; client type from client-type', async () => {
  assert.equal((await call('/tenants?tenant=x&tenant=acme')).status, 200);
  assert.equal((await call('/tenants?tenant=x')).status, 403);
  assert.equal((await call('/backoffice', { headers: { 'client-type': 'backoffice' } })).status, 200);
  assert.equal((await call('/backoffice')).status, 403);
});

// Rönd policy `testingPathParamsAbsence`: no pathParams member when the route has none.
test('pathParams left out of the input for a route without parameters', async () => {
  assert.equal((await call('/plain')).status, 200);
});

// Rönd router_test wildcard and collision cases.
test('trailing /* matches every sub-path; a static route beats the wildcard', async () => {
  assert.equal((await call('/files/a/b/c.txt')).status, 200);
  assert.equal(lastReceived()?.url, '/files/a/b/c.txt');
  assert.equal((await call('/files/')).status, 200);
  assert.equal((await call('/files/secret')).text, DENIED);
});

// Rönd main_test "registered with and without trailing slash when ignoreTrailingSlash is true".
test('trailing slash matters unless ignoreTrailingSlash', async () => {
  assert.equal((await call('/slash/')).status, 200);
  assert.equal((await call('/slash')).text, NO_ROUTE);
  assert.equal((await call('/lax')).status, 200);
  assert.equal((await call('/lax/')).status, 200);
});

// Rönd main_test "with escaped value": matching on the escaped path, forwarded escaped.
test('escaped slash in a parameter matches one segment and is forwarded as received', async () => {
  const props = JSON.stringify({ order: 'a%2Fb' });
  const r = await call('/orders/a%2Fb', { headers: { miauserproperties: props } });
  assert.equal(r.status, 200);
  assert.equal(lastReceived()?.url, '/orders/a%2Fb');
});

// Ours: Rönd compiles only the first .rego file it finds (core/opaevaluator_test loads one module).
test('a second policy file in Rego v1 syntax, with get_header, next to the v0 one', async () => {
  assert.equal((await call('/v1', { headers: { 'x-version': '1' } })).status, 200);
  assert.equal((await call('/v1', { headers: { 'x-version': '2' } })).status, 403);
});

// Ours: Rönd's `all` includes HEAD (router_test); the body-less answer is HTTP's rule.
test('HEAD goes through the policy of `all` and is answered without a body', async () => {
  const head = await call('/admin', { method: 'HEAD', headers: { miausergroups: 'admin' } });
  assert.equal(head.status, 200);
  assert.equal(head.text, '');
  assert.equal(lastReceived()?.method, 'HEAD');
  assert.equal((await call('/admin', { method: 'HEAD' })).status, 403);
});

// Rönd's x-permission (v1) adaptation: allow + rowFilter.headerKey.
// Rönd main_test "200 - integration passed" (simplifiedMock, x-permission.allow).
test('legacy x-permission: allow policy applies', async () => {
  assert.equal((await call('/legacy')).text, DENIED);
});

// Rönd handler_test "sends request with custom headers" and Go's ReverseProxy (hop-by-hop, SetXForwarded).
test('hop-by-hop headers dropped, X-Forwarded-* added, other headers kept', async () => {
  const status = await rawRequest(shared.sidecar.base, '/open', {
    'x-custom': 'v',
    'keep-alive': 'timeout=5',
    connection: 'keep-alive, x-drop',
    'x-drop': 'gone',
    authorization: 'Bearer t',
    'x-forwarded-for': '10.0.0.1',
  });
  assert.equal(status, 200);
  const got = lastReceived();
  assert.equal(got?.headers['x-drop'], undefined);
  assert.match(String(got?.headers['x-forwarded-for']), /^10\.0\.0\.1, /);
  assert.equal(got?.headers['x-custom'], 'v');
  assert.equal(got?.headers.authorization, 'Bearer t');
  assert.equal(got?.headers['keep-alive'], undefined);
  assert.equal(got?.headers['x-forwarded-proto'], 'http');
  assert.ok(got?.headers['x-forwarded-for']);
  assert.equal(got?.headers['x-forwarded-host'], new URL(shared.sidecar.base).host);
});

// Rönd main_test TestSetupRouterStandaloneMode "some eval API": a policy named test_policy (a
// test_* rule, with `with input as` here) is an ordinary policy.
test('a test_* rule used as the policy of a route', async () => {
  assert.equal((await call('/self-tested')).status, 200);
});

// Rönd simplifiedMock "/composed/permission/": dots in the policy name become underscores.
test('a dotted policy name (very.very.composed.permission) finds the rule with underscores', async () => {
  assert.equal((await call('/composed/permission/', { headers: { miausergroups: 'admin' } })).status, 200);
  assert.equal((await call('/composed/permission/')).text, DENIED);
});

// Rönd statusroutes_test "/-/rbac-healthz - ok", "/-/rbac-ready - ok", "/-/rbac-check-up - ok".
test('status routes answer themselves with Rönd body', async () => {
  for (const path of ['/-/rbac-healthz', '/-/rbac-ready', '/-/rbac-check-up']) {
    const r = await call(path);
    assert.equal(r.status, 200, path);
    const body = (await json(new Response(r.text))) as Record<string, string>;
    assert.equal(body.status, 'OK');
    assert.equal(body.name, 'rönd');
    assert.ok(body.version);
  }
  // any method, as Rönd's router registers them; never forwarded
  assert.equal((await call('/-/rbac-healthz', { method: 'POST' })).status, 200);
  const metrics = await call('/-/rbac-metrics');
  assert.match(metrics.text, /rond_policy_decisions_total\{policy="allow_all",result="allowed"\}/);
  assert.match(metrics.text, /rond_policy_evaluation_duration_seconds_bucket/);
  assert.match(metrics.text, /rond_upstream_duration_seconds_bucket/);
});
test.run();
