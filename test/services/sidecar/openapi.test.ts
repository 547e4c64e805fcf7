/** The standalone API's OpenAPI document, built from the permission routes. */
import * as assert from 'node:assert/strict';
import { standaloneOpenApiDocument } from '../../../services/sidecar/openapi.ts';
import { routesFromOpenApi } from '../../../services/sidecar/permissions.ts';
import { test } from '../../support/suite.ts';

const rond = (policyName: string) => ({ 'x-rond': { requestFlow: { policyName } } });

test('each route under the prefix; :id and a trailing * as path parameters; all as the undeclared methods', () => {
  const routes = routesFromOpenApi(
    {
      paths: {
        '/items/:itemId': { get: rond('allow_all') },
        '/files/*': { get: rond('allow_all') },
        '/admin': { all: rond('allow_admins'), get: rond('deny_all') },
      },
    },
    'test',
  );
  const document = standaloneOpenApiDocument(routes, '/eval', { name: 'sidecar', version: '1' });
  assert.deepEqual(Object.keys(document.paths).sort(), [
    '/eval/admin',
    '/eval/files/{wildcard}',
    '/eval/items/{itemId}',
  ]);
  const admin = document.paths['/eval/admin']!;
  assert.deepEqual(Object.keys(admin).sort(), ['delete', 'get', 'head', 'patch', 'post', 'put']);
  assert.match((admin.get as { summary: string }).summary, /deny_all/);
  assert.match((admin.post as { summary: string }).summary, /allow_admins/);
  assert.deepEqual(
    (document.paths['/eval/items/{itemId}']!.parameters as { name: string }[]).map((p) => p.name),
    ['itemId'],
  );
});

test.run();
