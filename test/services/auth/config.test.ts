import * as assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  authConfigJsonSchema,
  ConfigError,
  loadAuthConfig,
  parseAuthConfig,
} from '../../../services/auth/config.ts';
import { parseAuthEnv } from '../../../services/auth/env.ts';
import { EnvError } from '../../../services/kit/index.ts';
import { test } from '../../support/suite.ts';

const client = {
  auth0Url: 'https://tenant.eu.auth0.com/',
  clientId: 'cms-id',
  clientSecret: 'top-secret-value',
  redirectUrl: 'https://my-host/web-login/callback',
  scopes: ['offline_access', 'profile', 'email', 'website'],
};
const managementClient = {
  auth0Url: 'https://tenant.eu.auth0.com',
  clientId: 'm-id',
  clientSecret: 'management-secret-value',
  supportedConnections: ['db'],
  defaultCreateUserConnection: 'db',
};

function problems(raw: unknown): readonly string[] {
  try {
    parseAuthConfig(raw);
  } catch (error) {
    assert.ok(error instanceof ConfigError);
    for (const secret of ['top-secret-value', 'management-secret-value'])
      assert.ok(!error.message.includes(secret));
    return error.problems;
  }
  assert.fail('expected a ConfigError');
}

test("the reference's documented example loads (empty defaultConnection and defaultClient mean none)", () => {
  const config = parseAuthConfig({
    clients: {
      cms: { ...client, audience: 'https://my-host', supportedConnections: [], defaultConnection: '' },
    },
    defaultClient: '',
    managementClient,
    customClaimsNamespaces: ['https://mia-platform.eu/app_metadata'],
  });
  const cms = config.clients.get('cms')!;
  assert.equal(cms.auth0Url, 'https://tenant.eu.auth0.com', 'trailing slash dropped');
  assert.equal(cms.defaultConnection, undefined);
  assert.deepEqual(cms.signingAlgs, ['RS256']);
  assert.equal(cms.authorizeStateRequired, false);
  assert.equal(config.defaultClient, undefined);
  assert.deepEqual(config.management.connections, ['db']);
  assert.equal(config.management.defaultConnection, 'db');
});

test('defaultConnection must be one of supportedConnections; without it the first supported one is the default', () => {
  assert.deepEqual(
    problems({
      clients: { cms: { ...client, supportedConnections: ['db'], defaultConnection: 'google' } },
      managementClient,
    }),
    ['clients.cms.defaultConnection: must be one of supportedConnections'],
  );
  const config = parseAuthConfig({
    clients: { cms: { ...client, supportedConnections: ['google', 'db'] } },
    managementClient,
  });
  assert.equal(config.clients.get('cms')!.defaultConnection, 'google');
});

test('unknown keys are rejected at every level; required keys and types are checked', () => {
  const found = problems({
    clients: { cms: { ...client, sameSite: 'lax', colour: 'blue' } },
    managementClient: { ...managementClient, authorizeStateRequired: true },
    extra: 1,
  });
  assert.equal(found.length, 4, found.join('\n'));
  assert.ok(found.some((p) => p.startsWith('clients.cms.sameSite:')));
  assert.ok(found.some((p) => p.startsWith('clients.cms:') && p.includes('colour')));
  assert.ok(found.some((p) => p.startsWith('managementClient:') && p.includes('authorizeStateRequired')));
  assert.ok(found.some((p) => p.startsWith('(root):') && p.includes('extra')));
  assert.deepEqual(problems({ clients: { cms: { ...client, clientId: undefined } }, managementClient }), [
    'clients.cms.clientId: Invalid input: expected string, received undefined',
  ]);
});

test('managementClient: deprecated and current connection settings do not mix; defaults must be known connections', () => {
  assert.equal(
    problems({
      clients: {},
      managementClient: { ...managementClient, supportedConnectionsMap: { db: { connectionId: 'con_1' } } },
    }).length,
    1,
  );
  assert.deepEqual(
    problems({
      clients: {},
      managementClient: {
        ...managementClient,
        supportedConnections: undefined,
        defaultCreateUserConnection: undefined,
        supportedConnectionsMap: { db: { connectionId: 'con_1' } },
        defaultManagementConnectionName: 'other',
      },
    }),
    ['managementClient.defaultManagementConnectionName: must be a key of supportedConnectionsMap'],
  );
  assert.deepEqual(
    problems({ clients: {}, managementClient: { ...managementClient, defaultCreateUserConnection: 'x' } }),
    ['managementClient.defaultCreateUserConnection: must be one of supportedConnections'],
  );
});

test('a file that is missing or not JSON is a ConfigError that does not quote the file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'auth-config-'));
  writeFileSync(join(dir, 'broken.json'), '{"clientSecret": "top-secret-value" oops}');
  await assert.rejects(loadAuthConfig(dir, 'broken.json'), (error: Error) => {
    assert.ok(error instanceof ConfigError);
    assert.deepEqual(error.problems, ['is not valid JSON']);
    return true;
  });
  await assert.rejects(loadAuthConfig(dir, 'missing.json'), /cannot be read \(ENOENT\)/);
});

test('the JSON Schema rejects unknown keys and lists the SameSite values', () => {
  const schema = authConfigJsonSchema() as {
    additionalProperties: boolean;
    required: string[];
    properties: {
      clients: { additionalProperties: Record<string, unknown> & { properties: Record<string, unknown> } };
    };
  };
  assert.equal(schema.additionalProperties, false);
  assert.deepEqual(schema.required, ['clients', 'managementClient']);
  const clientSchema = schema.properties.clients.additionalProperties;
  assert.equal(clientSchema.additionalProperties, false);
  assert.deepEqual(clientSchema.properties.sameSite, { type: 'string', enum: ['Lax', 'None', 'Strict'] });
});

const baseEnv = {
  SERVICE_CONFIG_PATH: '/config',
  SERVICE_CONFIG_FILE_NAME: 'config.json',
  REDIS_HOSTS: 'redis',
};

test('environment: the defaults of auth0-client, and hosts with the default port 6379', () => {
  const env = parseAuthEnv({ ...baseEnv, REDIS_HOSTS: 'a, b:6380,[::1]:7000' });
  assert.equal(env.HTTP_PORT, 8080);
  assert.equal(env.SESSION_DURATION_SECONDS, 86_400);
  assert.equal(env.SESSION_SCOPE, 'website');
  assert.equal(env.REDIS_MODE, 'normal');
  assert.equal(env.DELAY_SHUTDOWN_SECONDS, 10);
  assert.equal(env.AUTH0_LOGOUT_CLIENT_ID_ENABLED, false);
  assert.deepEqual(env.REDIS_HOSTS, [
    { host: 'a', port: 6379 },
    { host: 'b', port: 6380 },
    { host: '::1', port: 7000 },
  ]);
});

test('environment: every bad variable is named, secret values are hidden', () => {
  assert.throws(
    () =>
      parseAuthEnv({
        REDIS_HOSTS: 'a:99999',
        REDIS_MODE: 'cluster',
        REDIS_PASSWORD: ' \t ',
        REDIS_TLS: 'maybe',
        SESSION_DURATION_SECONDS: 'soon',
      }),
    (error: Error) => {
      assert.ok(error instanceof EnvError);
      const names = error.problems.map((p) => p.split(':')[0]).sort();
      assert.deepEqual(names, [
        'REDIS_HOSTS',
        'REDIS_MODE',
        'REDIS_PASSWORD',
        'REDIS_TLS',
        'SERVICE_CONFIG_FILE_NAME',
        'SERVICE_CONFIG_PATH',
        'SESSION_DURATION_SECONDS',
      ]);
      assert.ok(error.problems.some((p) => p.startsWith('REDIS_PASSWORD:') && p.endsWith('(got <hidden>)')));
      return true;
    },
  );
  assert.throws(
    () => parseAuthEnv({ ...baseEnv, REDIS_MODE: 'sentinel' }),
    /REDIS_MASTER_NAME: required when/,
  );
  assert.throws(() => parseAuthEnv({ ...baseEnv, REDIS_HOSTS: '' }), /REDIS_HOSTS: required, not set/);
});

test('environment: an empty variable counts as not set (templated deployments leave unused ones empty)', () => {
  const env = parseAuthEnv({
    ...baseEnv,
    REDIS_PASSWORD: '',
    REDIS_USERNAME: '',
    HTTP_PORT: '',
    SESSION_SCOPE: '',
  });
  assert.equal(env.REDIS_PASSWORD, undefined);
  assert.equal(env.REDIS_USERNAME, undefined);
  assert.equal(env.HTTP_PORT, 8080);
  assert.equal(env.SESSION_SCOPE, 'website');
});

test.run();
