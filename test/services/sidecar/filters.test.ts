/**
 * Row filters (the MongoDB query the upstream receives in a header) and response filters (the
 * body the policy returns), through the real proxy.
 */
import * as assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { test } from '../../support/suite.ts';
import { SINK } from '../rego/builtins/crypto-x509.fixtures.ts';
import { sidecarForSuite } from './harness.ts';

const shared = sidecarForSuite(test, {
  MANUAL_ROUTES_FILE_PATH: `${new URL('./fixtures/manual-routes.json', import.meta.url).pathname}`,
});

const call = (path: string, headers: Record<string, string> = {}) => shared.call(path, { headers });

const last = () => shared.upstream.received.at(-1);

// Rönd handler_test "with row filter": query in acl_rows, built from the user.
test('row filter $eq: the upstream receives the query in acl_rows', async () => {
  const r = await call('/rows', { miauserid: 'u1' });
  assert.equal(r.status, 200);
  assert.deepEqual(JSON.parse(String(last()?.headers.acl_rows)), {
    $or: [{ $and: [{ owner: { $eq: 'u1' } }] }],
  });
});

// Rönd opatranslator mongo_test: every operator, alternatives as $or, nested fields dotted.
test('row filter operators $gt $lte $ne $gte $lt $in, nested fields, custom header name', async () => {
  const r = await call('/rows/ops');
  assert.equal(r.status, 200);
  assert.equal(last()?.headers.acl_rows, undefined);
  assert.deepEqual(JSON.parse(String(last()?.headers['x-security-query'])), {
    $or: [
      {
        $and: [
          { amount: { $gt: 10 } },
          { amount: { $lte: 500 } },
          { state: { $ne: 'archived' } },
          { 'tags.kind': { $eq: 'retail' } },
        ],
      },
      { $and: [{ amount: { $gte: 1000 } }, { amount: { $lt: 2000 } }, { region: { $in: ['eu', 'us'] } }] },
    ],
  });
});

// Rönd handler_test "sends filter query": the header is set (replaced), never appended.
// Rönd handler_test "sends filter query with $in" "as single item", byte for byte (its "as array"
// case, `["x"] in row.field` → `{"$in":["x"]}`, is the engine's partial.test.ts).
test('row filter `value in row.field` (an array field holding the value): $in with the value', async () => {
  assert.equal((await call('/rows/member-id')).status, 200);
  assert.equal(last()?.headers.rowfilterquery, '{"$or":[{"$and":[{"membership":{"$in":[321]}}]}]}');
  assert.equal((await call('/rows/member-of')).status, 200);
  assert.deepEqual(JSON.parse(String(last()?.headers.rowfilterquery)).$or[1], {
    $and: [{ salary: { $gt: 0 } }],
  });
});

// Rönd handler_test "not sends empty filter query" and "sends empty filter query" (the header
// reads ""): a body that only iterates data.resources, or holds without them, lets every row pass.
test('a row filter with no condition: the request goes upstream without the header', async () => {
  const r = await call('/rows/unconditional', { examplekey: 'value' });
  assert.equal(r.status, 200);
  assert.equal(last()?.url, '/rows/unconditional');
  assert.equal(last()?.headers.rowfilterquery, undefined);
  await call('/rows/iterate-only');
  assert.equal(last()?.url, '/rows/iterate-only');
  assert.equal(last()?.headers.acl_rows, undefined);
});

test('a row filter with no condition still drops a header the caller sent', async () => {
  await call('/rows/iterate-only', { acl_rows: '{"owner":"eve"}' });
  assert.equal(last()?.headers.acl_rows, undefined);
});

test('a caller cannot smuggle its own row-filter header', async () => {
  await call('/rows', { miauserid: 'u1', acl_rows: '{"$or":[{}]}' });
  assert.deepEqual(JSON.parse(String(last()?.headers.acl_rows)), {
    $or: [{ $and: [{ owner: { $eq: 'u1' } }] }],
  });
});

// Rönd handler_test "with empty query and application/json content type returns 200 []".
test('no row can pass: JSON requests get 200 [] without calling upstream; others 403', async () => {
  const before = shared.upstream.received.length;
  const jsonAnswer = await call('/rows/none', { 'content-type': 'application/json' });
  assert.equal(jsonAnswer.status, 200);
  assert.equal(jsonAnswer.text, '[]');
  assert.equal(jsonAnswer.headers.get('content-type'), 'application/json');
  const other = await call('/rows/none');
  assert.equal(other.status, 403);
  assert.equal(
    other.text,
    '{"error":"RBAC policy evaluation failed","message":"You do not have permissions to access this feature, contact the project administrator for more information.","statusCode":403}',
  );
  assert.equal(shared.upstream.received.length, before);
});

// Rönd opa_translator_test "operator not supported": Rönd answers 403; ours 500 (issue 16).
test('a row filter the translator cannot express (negation) is an evaluation error: 500', async () => {
  const r = await call('/rows/not');
  assert.equal(r.status, 500);
  assert.equal(JSON.parse(r.text).error, 'policy evaluation failed');
});

// Rönd handler_test "sends filter query" with x-permission resourceFilter.rowFilter.headerKey.
test('legacy x-permission rowFilter.headerKey and default header; manual route headerName', async () => {
  assert.equal((await call('/legacy', { miausergroups: 'admin' })).status, 200);
  // allow_admins has no data.resources: every row passes, so there is no filter to send
  assert.equal(last()?.headers['legacy-rows'], undefined);
  await call('/legacy/rows', { miauserid: 'u2' });
  assert.deepEqual(JSON.parse(String(last()?.headers.acl_rows)), {
    $or: [{ $and: [{ owner: { $eq: 'u2' } }] }],
  });
  await call('/manual-rows', { miauserid: 'u3' });
  assert.deepEqual(JSON.parse(String(last()?.headers['x-rows'])), {
    $or: [{ $and: [{ owner: { $eq: 'u3' } }] }],
  });
});

// Rönd opa_transport_test: the policy's value replaces the body, Content-Length fixed.
test('response filter over an array: a field removed from each record', async () => {
  const records = [
    { id: 1, secret: 's1', name: 'a' },
    { id: 2, secret: 's2', name: 'b' },
  ];
  const r = await call('/items', { 'x-test-respond': `json:${JSON.stringify(records)}` });
  assert.equal(r.status, 200);
  assert.deepEqual(JSON.parse(r.text), [
    { id: 1, name: 'a' },
    { id: 2, name: 'b' },
  ]);
  assert.equal(r.headers.get('content-length'), String(Buffer.byteLength(r.text)));
  assert.equal(r.headers.get('content-type'), 'application/json; charset=utf-8');
  const manual = await call('/manual-items', { 'x-test-respond': `json:${JSON.stringify(records)}` });
  assert.deepEqual(JSON.parse(manual.text), [
    { id: 1, name: 'a' },
    { id: 2, name: 'b' },
  ]);
});

// Rönd main_test "200 - with correct body filtered returned" (a filter over an object body).
test('response filter over an object, with the user in the input', async () => {
  const r = await call('/summary', { miauserid: 'u9', 'x-test-respond': 'json:{"items":[1,2,3]}' });
  assert.equal(r.status, 200);
  assert.deepEqual(JSON.parse(r.text), { owner: 'u9', total: 3 });
});

// Rönd policy `original_path`: the request is still in the input of the response flow.
test('response filter sees the request path', async () => {
  const r = await call('/echo-path/42', { 'x-test-respond': 'json:{}' });
  assert.equal(r.text, '"/echo-path/42"');
});

// OPA's JSON numbers are arbitrary precision: a certificate's serial and RSA modulus, an integer
// product beyond 2^53 (a double) and a big literal reach the client with all their digits.
test('response filter: integers beyond 2^53 in the body with all their digits', async () => {
  const r = await call('/big-numbers', { 'x-test-respond': `json:${JSON.stringify({ cert: SINK })}` });
  assert.equal(r.status, 200);
  const modulus = BigInt(
    `0x${Buffer.from(new X509Certificate(SINK).publicKey.export({ format: 'jwk' }).n!, 'base64url').toString('hex')}`,
  );
  assert.equal(
    r.text,
    `{"literal":1180591620717411303425,"modulus":${modulus},"product":1180591620717411303424,"ratio":1.5,"serial":${0x0123456789abcdef0123n},"small":42}`,
  );
  assert.equal(r.headers.get('content-length'), String(Buffer.byteLength(r.text)));
});

// Rönd writes the filter with Go's json.Marshal, which prints a json.Number as written.
test('row filter: integer constants beyond 2^53 in the header with all their digits', async () => {
  assert.equal((await call('/rows/big')).status, 200);
  assert.equal(
    last()?.headers['x-big'],
    '{"$or":[{"$and":[{"serial":{"$eq":1180591620717411303425}},{"count":{"$gt":1180591620717411303424}}]}]}',
  );
});

// Rönd opa_transport_test: non-2xx relayed unchanged; empty body relayed; non-JSON → 500; denied → 403.
test('response filter: non-2xx and empty bodies relayed, non-JSON 500, false policy 403', async () => {
  const notFound = await call('/items', { 'x-test-respond': 'status:404' });
  assert.equal(notFound.status, 404);
  assert.equal(notFound.text, '{"upstream":"error"}');
  const empty = await call('/items', { 'x-test-respond': 'empty' });
  assert.equal(empty.status, 200);
  assert.equal(empty.text, '');
  const text = await call('/items', { 'x-test-respond': 'text' });
  assert.equal(text.status, 500);
  assert.equal(
    text.text,
    '{"error":"unexpected content type: response content-type is not application/json","message":"Internal server error, please try again later","statusCode":500}',
  );
  const denied = await call('/denied-response', { 'x-test-respond': 'json:[1]' });
  assert.equal(denied.status, 403);
  assert.equal(
    denied.text,
    '{"error":"policy not allowed","message":"You do not have permissions to access this feature, contact the project administrator for more information.","statusCode":403}',
  );
  const invalid = await call('/items', { 'x-test-respond': 'json:{oops' });
  assert.equal(invalid.status, 502);
});

test.run();
