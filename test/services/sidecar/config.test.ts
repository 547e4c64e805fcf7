/**
 * Start-up: environment errors naming the variable, permissions from YAML, from the target
 * service (TARGET_SERVICE_OAS_PATH) and from manual routes, and standalone mode.
 */
import * as assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { service } from '../../../services/sidecar/index.ts';
import { test } from '../../support/suite.ts';
import { FIXTURES, jsonOf, startUpstream, startWith } from './harness.ts';

async function runFails(env: Record<string, string>): Promise<string[]> {
  const lines: string[] = [];
  const code = await service.run(env, { out: (l) => lines.push(l), err: (l) => lines.push(l) });
  assert.equal(code, 1);
  return lines;
}

// Rönd env_test: required variables and the TARGET_SERVICE_HOST/STANDALONE rule.
test('missing or bad variables: exit code 1 and a line naming each', async () => {
  const lines = await runFails({ HTTP_PORT: 'eighty' });
  const text = lines.join('\n');
  assert.match(text, /OPA_MODULES_DIRECTORY: required, not set/);
  assert.match(text, /HTTP_PORT: expected integer 0\.\.65535 \(got "eighty"\)/);
  // the rules between variables, once each variable is valid on its own
  const cross = (await runFails({ OPA_MODULES_DIRECTORY: '/x' })).join('\n');
  assert.match(cross, /TARGET_SERVICE_HOST: required, not set/);
  assert.match(cross, /API_PERMISSIONS_FILE_PATH: required, not set/);
  const mongo = await runFails({
    OPA_MODULES_DIRECTORY: `${FIXTURES}policies`,
    API_PERMISSIONS_FILE_PATH: `${FIXTURES}permissions.json`,
    STANDALONE: 'true',
    MONGODB_URL: 'mongodb://127.0.0.1:1/x',
  });
  assert.match(mongo.join('\n'), /ROLES_COLLECTION_NAME/);
  assert.match(
    (await runFails({ OPA_MODULES_DIRECTORY: '/x', STANDALONE: 'maybe' })).join('\n'),
    /STANDALONE/,
  );
  const bad = (
    await runFails({
      OPA_MODULES_DIRECTORY: '/x',
      STANDALONE: 'true',
      BINDINGS_CRUD_SERVICE_URL: 'ftp://crud/bindings',
      EXPOSE_METRICS: 'sometimes',
    })
  ).join('\n');
  assert.match(bad, /BINDINGS_CRUD_SERVICE_URL: expected an http\(s\) URL/);
  assert.match(bad, /EXPOSE_METRICS/);
});

test('the manual routes file is published as JSON Schema', () => {
  const schema = service.configSchema?.() as { type: string; items: { required: string[] } };
  assert.equal(schema.type, 'array');
  assert.deepEqual([...schema.items.required].sort(), ['allow', 'method', 'path']);
});

test('unreadable policies or permissions: exit code 1 with the reason', async () => {
  const empty = mkdtempSync(join(tmpdir(), 'sidecar-empty-'));
  const base = {
    STANDALONE: 'true',
    API_PERMISSIONS_FILE_PATH: `${FIXTURES}permissions.json`,
    HTTP_PORT: '0',
  };
  assert.match(
    (await runFails({ ...base, OPA_MODULES_DIRECTORY: empty })).join('\n'),
    /OPA_MODULES_DIRECTORY: no \.rego file/,
  );
  const broken = mkdtempSync(join(tmpdir(), 'sidecar-broken-'));
  writeFileSync(join(broken, 'p.rego'), 'package policies\n\nallow {\n');
  assert.match((await runFails({ ...base, OPA_MODULES_DIRECTORY: broken })).join('\n'), /p\.rego:\d+:\d+/);
  assert.match(
    (
      await runFails({
        ...base,
        OPA_MODULES_DIRECTORY: `${FIXTURES}policies`,
        API_PERMISSIONS_FILE_PATH: '/nope.json',
      })
    ).join('\n'),
    /cannot read \/nope\.json/,
  );
});

// Rönd openapi_utils_test "invalid configuration" (duplicate paths with ignoreTrailingSlash).
test('"/x" and "/x/" with the same method and ignoreTrailingSlash: start-up error', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sidecar-twins-'));
  const rond = (ignoreTrailingSlash: boolean) => ({
    'x-rond': { requestFlow: { policyName: 'allow_all' }, options: { ignoreTrailingSlash } },
  });
  writeFileSync(
    join(dir, 'oas.json'),
    JSON.stringify({ paths: { '/x/': { all: rond(false) }, '/x': { get: rond(true) } } }),
  );
  const lines = await runFails({
    STANDALONE: 'true',
    HTTP_PORT: '0',
    OPA_MODULES_DIRECTORY: `${FIXTURES}policies`,
    API_PERMISSIONS_FILE_PATH: join(dir, 'oas.json'),
  });
  assert.match(lines.join('\n'), /duplicate paths: "\/x" and "\/x\/" with ignoreTrailingSlash flag active/);
});

test('a fetched permissions document that is unusable stops the service (exit code 1)', async () => {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"openapi":"3.0.0"}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const lines = await runFails({
      HTTP_PORT: '0',
      LOG_LEVEL: 'silent',
      DELAY_SHUTDOWN_SECONDS: '0',
      TARGET_SERVICE_HOST: `127.0.0.1:${(server.address() as AddressInfo).port}`,
      TARGET_SERVICE_OAS_PATH: '/documentation/json',
      OPA_MODULES_DIRECTORY: `${FIXTURES}policies`,
    });
    assert.match(lines.join('\n'), /no "paths" object/);
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
});

test('permissions in YAML', async () => {
  const upstream = await startUpstream();
  const sidecar = await startWith({
    TARGET_SERVICE_HOST: upstream.host,
    API_PERMISSIONS_FILE_PATH: `${FIXTURES}permissions.yaml`,
  });
  try {
    assert.equal((await fetch(`${sidecar.base}/yaml`, { headers: { miausergroups: 'admin' } })).status, 200);
    assert.equal((await fetch(`${sidecar.base}/yaml`)).status, 403);
  } finally {
    await sidecar.close();
    await upstream.close();
  }
});

// Rönd main_test "fetches the OAS from TARGET_SERVICE_OAS_PATH" and the documentation route
// proxied without a permission; not ready until the document arrives (Rönd retries every second).
test('TARGET_SERVICE_OAS_PATH: fetched with retries, 503 and not ready until then', async () => {
  let documentAsked = 0;
  const document = {
    paths: { '/fetched': { get: { 'x-rond': { requestFlow: { policyName: 'allow_admins' } } } } },
  };
  const server = createServer((req, res) => {
    if (req.url === '/documentation/json') {
      documentAsked++;
      if (documentAsked === 1) return void res.writeHead(503).end();
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(document));
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"from":"upstream"}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  const sidecar = await startWith({
    TARGET_SERVICE_HOST: host,
    API_PERMISSIONS_FILE_PATH: undefined,
    TARGET_SERVICE_OAS_PATH: '/documentation/json',
  });
  try {
    const early = await fetch(`${sidecar.base}/fetched`, { headers: { miausergroups: 'admin' } });
    if (early.status === 503) {
      assert.equal((await jsonOf(early)).error, 'service not ready to work yet');
      assert.equal((await fetch(`${sidecar.base}/-/rbac-ready`)).status, 503);
    }
    await sidecar.sidecar.loaded;
    assert.equal((await fetch(`${sidecar.base}/-/rbac-ready`)).status, 200);
    assert.equal(
      (await fetch(`${sidecar.base}/fetched`, { headers: { miausergroups: 'admin' } })).status,
      200,
    );
    assert.equal((await fetch(`${sidecar.base}/fetched`)).status, 403);
    const docs = await fetch(`${sidecar.base}/documentation/json`);
    assert.equal(docs.status, 200);
    assert.deepEqual(await docs.json(), document);
    assert.ok(documentAsked >= 3);
  } finally {
    await sidecar.close();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
});

test('logs: one line per decision, print() lines at debug, no header values', async () => {
  const lines: Record<string, unknown>[] = [];
  const logger = pino(
    { level: 'debug' },
    { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
  );
  const upstream = await startUpstream();
  const sidecar = await startWith({ TARGET_SERVICE_HOST: upstream.host }, logger);
  try {
    const secret = 'Bearer very-secret-token';
    await fetch(`${sidecar.base}/printing`, {
      headers: { miauserid: 'u42', authorization: secret, cookie: 'sid=s' },
    });
    await fetch(`${sidecar.base}/closed`, { headers: { authorization: secret } });
    const decisions = lines.filter((l) => l.msg === 'policy decision');
    assert.deepEqual(
      decisions.map((d) => [d.route, d.method, d.policy, d.result, typeof d.ms]),
      [
        ['/printing', 'GET', 'allow_printing', 'allowed', 'number'],
        ['/closed', 'GET', 'deny_all', 'denied', 'number'],
      ],
    );
    const printed = lines.find((l) => l.msg === 'policy print');
    assert.equal(printed?.print, 'checking u42');
    const all = JSON.stringify(lines);
    assert.ok(!all.includes('very-secret-token'));
    assert.ok(!all.includes('sid=s'));
  } finally {
    await sidecar.close();
    await upstream.close();
  }
});

// Rönd standalone: decisions under PATH_PREFIX_STANDALONE, 200 with no body, the row filter
// returned as a response header.
test('STANDALONE=true: /eval routes answer the decision and the row filter header', async () => {
  const sidecar = await startWith({ STANDALONE: 'true' });
  try {
    const allowed = await fetch(`${sidecar.base}/eval/admin`, { headers: { miausergroups: 'admin' } });
    assert.equal(allowed.status, 200);
    assert.equal(await allowed.text(), '');
    const denied = await fetch(`${sidecar.base}/eval/admin`, { method: 'POST' });
    assert.equal(denied.status, 403);
    assert.equal((await jsonOf(denied)).error, 'RBAC policy evaluation failed');
    const rows = await fetch(`${sidecar.base}/eval/rows`, { headers: { miauserid: 'u5' } });
    assert.equal(rows.status, 200);
    assert.deepEqual(JSON.parse(rows.headers.get('acl_rows') ?? ''), {
      $or: [{ $and: [{ owner: { $eq: 'u5' } }] }],
    });
    // Rönd echoes the header it would forward: empty when every row passes.
    const everyRow = await fetch(`${sidecar.base}/eval/rows/iterate-only`, { headers: { acl_rows: '{}' } });
    assert.equal(everyRow.status, 200);
    assert.equal(everyRow.headers.get('acl_rows'), '');
    assert.equal((await fetch(`${sidecar.base}/eval/unknown`)).status, 403);
    // Rönd opamiddleware_test "injects correct path removing prefix" / "... removing only one
    // prefix": the route is the path without one prefix; the policy sees the whole path.
    const composed = await fetch(`${sidecar.base}/eval/composed/permission/`, {
      headers: { miausergroups: 'admin' },
    });
    assert.equal(composed.status, 200);
    assert.equal((await fetch(`${sidecar.base}/eval/eval/composed/permission/`)).status, 200);
    assert.equal((await fetch(`${sidecar.base}/admin`)).status, 404);
    assert.equal((await fetch(`${sidecar.base}/-/rbac-healthz`)).status, 200);
  } finally {
    await sidecar.close();
  }
});

// Rönd main_test TestSetupRouterMetrics "metrics API exposed correctly", and EXPOSE_METRICS=false
// (Rönd registers no metrics route then).
test('EXPOSE_METRICS: metrics at /-/rond/metrics by default, no metrics route when false', async () => {
  const shown = await startWith({ STANDALONE: 'true' });
  const hidden = await startWith({ STANDALONE: 'true', EXPOSE_METRICS: 'false' });
  try {
    await fetch(`${shown.base}/eval/admin`, { headers: { miausergroups: 'admin' } });
    const metrics = await fetch(`${shown.base}/-/rond/metrics`);
    assert.equal(metrics.status, 200);
    assert.match(
      await metrics.text(),
      /rond_policy_evaluation_duration_seconds_bucket\{[^}]*policy="allow_admins"/,
    );
    for (const path of ['/-/rond/metrics', '/-/rbac-metrics'])
      assert.equal((await fetch(`${hidden.base}${path}`)).status, 404, path);
    assert.equal(
      (await fetch(`${hidden.base}/eval/admin`, { headers: { miausergroups: 'admin' } })).status,
      200,
    );
  } finally {
    await shown.close();
    await hidden.close();
  }
});

test.run();
