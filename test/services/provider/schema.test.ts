import * as assert from 'node:assert/strict';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsPlugin from 'ajv-formats';
import { z } from 'zod';
import {
  CREDENTIAL_TYPES,
  type CredentialType,
  credentialTypesFor,
  PROVIDER_TYPES,
  type ProviderType,
} from '../../../services/provider/matrix.ts';
import { SCHEMAS, unsupportedCredential } from '../../../services/provider/provider-schema.ts';
import { describeIssues } from '../../../services/provider/validation.ts';
import { test } from '../../support/suite.ts';
import { CA_BASE64, CREDENTIALS, provider, SECRET_MARK } from './bodies.ts';

const { create, patch } = SCHEMAS.current;

function problems(schema: z.ZodType, body: unknown): string[] {
  const result = schema.safeParse(body);
  return result.success ? [] : describeIssues(result.error.issues, body).map((e) => `${e.path} ${e.message}`);
}

// The spec's table, written out cell by cell rather than derived from the code under test.
const SUPPORTED: Record<ProviderType, CredentialType[]> = {
  gitlab: ['token', 'userPass'],
  github: ['token', 'userPass', 'github-app'],
  bitbucket: ['token', 'userPass'],
  'azure-devops': ['token', 'userPass', 'client_credentials'],
  vault: ['token', 'userPass', 'm2m'],
  jenkins: ['token', 'userPass', 'client_credentials'],
};

for (const providerType of PROVIDER_TYPES) {
  for (const credentialType of CREDENTIAL_TYPES) {
    const expected = SUPPORTED[providerType].includes(credentialType);
    test(`matrix: ${providerType} × ${credentialType} is ${expected ? 'accepted' : 'rejected'}`, () => {
      const body = provider('p', providerType, { credentials: CREDENTIALS[credentialType] });
      const found = problems(create, body);
      if (expected) assert.deepEqual(found, []);
      else {
        assert.equal(found.length, 1, found.join('\n'));
        assert.match(found[0]!, /^\/credentials\/type .*Expected/);
      }
      assert.equal(unsupportedCredential(providerType, credentialType) === undefined, expected);
      assert.equal(credentialTypesFor(providerType).includes(credentialType), expected);
    });
  }
}

/**
 * One row per field rule: a value that passes and values that break it, each in a POST body (and,
 * for the fields PATCH takes, a PATCH body) that is otherwise valid; a broken one is exactly one
 * problem at `path`.
 */
const FIELD_RULES: {
  path: string;
  at: (value: unknown) => Record<string, unknown>;
  valid: unknown[];
  invalid: unknown[];
  patch?: false;
}[] = [
  {
    path: '/providerId',
    at: (providerId) => ({ providerId }),
    valid: ['a', 'x'.repeat(256)],
    invalid: ['', 'x'.repeat(257), 7, null],
    patch: false,
  },
  { path: '/label', at: (label) => ({ label }), valid: ['', 'GitLab'], invalid: [1, null, ['x']] },
  { path: '/description', at: (description) => ({ description }), valid: ['ours'], invalid: [false, {}] },
  {
    path: '/capabilities',
    at: (capabilities) => ({ capabilities }),
    valid: [[], ['ci-cd-tool']],
    invalid: ['git-provider', {}],
  },
  {
    path: '/capabilities/0',
    at: (capability) => ({ capabilities: [capability] }),
    valid: ['secret-manager'],
    invalid: ['registry', 1],
  },
  {
    path: '/urls',
    at: (urls) => ({ urls }),
    valid: [{ base: 'http://a.example', apiBase: 'https://a.example/api' }],
    invalid: ['https://a.example', null],
  },
  {
    path: '/urls/base',
    at: (base) => ({ urls: { base, apiBase: 'https://a.example/api' } }),
    valid: ['https://a.example:8443/x'],
    invalid: ['a.example', 'ftp://a.example', '', 3],
  },
  {
    path: '/urls/apiBase',
    at: (apiBase) => ({ urls: { base: 'https://a.example', apiBase } }),
    valid: ['http://10.0.0.1/api'],
    invalid: ['/api', 'mailto:a@example.com'],
  },
  {
    path: '/base64CA',
    at: (base64CA) => ({ base64CA }),
    valid: [CA_BASE64],
    invalid: ['', '%%%', Buffer.from('-----BEGIN CERTIFICATE-----').toString('base64')],
  },
  {
    path: '/proxy',
    at: (proxy) => ({ proxy }),
    valid: [{ url: 'http://proxy:3128' }],
    invalid: ['http://proxy:3128', []],
  },
  {
    path: '/proxy/url',
    at: (url) => ({ proxy: { url } }),
    valid: ['https://proxy.example'],
    invalid: ['proxy:3128', 3128],
  },
  {
    path: '/proxy/username',
    at: (username) => ({ proxy: { url: 'http://p:1', username } }),
    valid: ['bot'],
    invalid: [42],
  },
  {
    path: '/credentials',
    at: (credentials) => ({ credentials }),
    valid: [CREDENTIALS.token],
    invalid: ['token', null, []],
  },
  {
    path: '/credentials/content',
    at: (content) => ({ credentials: { type: 'token', content } }),
    valid: [{ accessToken: 't' }],
    invalid: ['t', null],
  },
  {
    path: '/credentials/content/accessTokenURL',
    at: (accessTokenURL) => ({
      type: 'vault',
      credentials: { type: 'm2m', content: { accessTokenURL, token: 't' } },
    }),
    valid: ['https://vault.example/v1/login'],
    invalid: ['vault/login', ''],
  },
  {
    path: '/credentials/content/clientId',
    at: (clientId) => ({
      type: 'jenkins',
      credentials: {
        type: 'client_credentials',
        content: { accessTokenURL: 'https://j.example/t', clientId, clientSecret: 's' },
      },
    }),
    valid: ['id'],
    invalid: ['', 1],
  },
  {
    path: '/credentials/content/appId',
    at: (appId) => ({
      type: 'github',
      credentials: { type: 'github-app', content: { ...CREDENTIALS['github-app'].content, appId } },
    }),
    valid: ['1'],
    invalid: ['', 1],
  },
];

for (const rule of FIELD_RULES) {
  test(`field rule ${rule.path}: ${rule.valid.length} valid, ${rule.invalid.length} invalid value(s)`, () => {
    const body = (value: unknown) => ({ ...provider('p', 'gitlab'), ...rule.at(value) });
    const patchBody = (value: unknown) => {
      const { providerId: _, ...fields } = rule.at(value);
      return fields;
    };
    for (const value of rule.valid) {
      assert.deepEqual(problems(create, body(value)), [], JSON.stringify(value));
      if (rule.patch !== false)
        assert.deepEqual(problems(patch, patchBody(value)), [], JSON.stringify(value));
    }
    for (const value of rule.invalid) {
      const found = problems(create, body(value));
      assert.equal(found.length, 1, `${JSON.stringify(value)}: ${found.join('; ')}`);
      assert.ok(found[0]!.startsWith(`${rule.path} `), found[0]);
      if (rule.patch !== false) {
        const inPatch = problems(patch, patchBody(value));
        assert.equal(inPatch.length, 1, `PATCH ${JSON.stringify(value)}: ${inPatch.join('; ')}`);
        assert.ok(inPatch[0]!.startsWith(`${rule.path} `), inPatch[0]);
      }
    }
  });
}

test('a minimal provider of each type is accepted, credentials optional', () => {
  for (const type of PROVIDER_TYPES) assert.deepEqual(problems(create, provider('p', type)), []);
});

test('POST: providerId, type and both urls are required', () => {
  assert.deepEqual(problems(create, { type: 'gitlab', urls: {} }).sort(), [
    '/providerId Invalid input: expected string, received undefined',
    '/urls/apiBase Invalid input: expected string, received undefined',
    '/urls/base Invalid input: expected string, received undefined',
  ]);
  assert.match(problems(create, { providerId: 'p', urls: {} })[0]!, /^\/type Invalid discriminator value/);
  assert.match(problems(create, provider('p', 'svn' as ProviderType))[0]!, /^\/type .* \(got "svn"\)$/);
});

test('no unknown property at the top level, in urls, proxy, credentials or their content', () => {
  const body = provider('p', 'gitlab', {
    id: 'sample-name',
    urls: { base: 'https://a.example', apiBase: 'https://a.example/api', web: 'https://x' },
    proxy: { url: 'http://proxy:3128', port: 3128 },
    credentials: { ...CREDENTIALS.token, scope: 'x', content: { accessToken: 't', refreshToken: 'r' } },
  });
  assert.deepEqual(problems(create, body).sort(), [
    '/ Unrecognized key: "id"',
    '/credentials Unrecognized key: "scope"',
    '/credentials/content Unrecognized key: "refreshToken"',
    '/proxy Unrecognized key: "port"',
    '/urls Unrecognized key: "web"',
  ]);
});

test('urls must be http(s) URLs', () => {
  const body = provider('p', 'gitlab', { urls: { base: 'not a url', apiBase: 'ftp://git.example.com' } });
  assert.deepEqual(problems(create, body).sort(), [
    '/urls/apiBase expected an http(s) URL (got "ftp://git.example.com")',
    '/urls/base expected an http(s) URL (got "not a url")',
  ]);
});

test('every credential form requires each of its content fields, non-empty', () => {
  for (const type of CREDENTIAL_TYPES) {
    const form = CREDENTIALS[type];
    const owner = PROVIDER_TYPES.find((p) => SUPPORTED[p].includes(type))!;
    for (const field of Object.keys(form.content)) {
      const content = { ...form.content };
      delete content[field];
      const missing = problems(create, provider('p', owner, { credentials: { ...form, content } }));
      assert.deepEqual(missing, [
        `/credentials/content/${field} Invalid input: expected string, received undefined`,
      ]);
      const empty = problems(
        create,
        provider('p', owner, { credentials: { ...form, content: { ...form.content, [field]: '' } } }),
      );
      assert.equal(empty.length, 1, `${type}.${field} empty`);
    }
    assert.equal(
      problems(create, provider('p', owner, { credentials: { type } })).length,
      1,
      `${type} without content`,
    );
  }
});

test('github-app privateKeyBase64 must be base64', () => {
  const credentials = {
    ...CREDENTIALS['github-app'],
    content: { ...CREDENTIALS['github-app'].content, privateKeyBase64: 'not base64!' },
  };
  assert.deepEqual(problems(create, provider('p', 'github', { credentials })), [
    '/credentials/content/privateKeyBase64 Invalid base64-encoded string',
  ]);
});

test('expirationDate must be an RFC 3339 date-time', () => {
  const at = (expirationDate: string) =>
    provider('p', 'gitlab', { credentials: { ...CREDENTIALS.token, expirationDate } });
  assert.deepEqual(problems(create, at('2027-01-31T23:59:59Z')), []);
  assert.deepEqual(problems(create, at('2027-01-31T23:59:59.5+01:00')), []);
  for (const bad of ['2027-01-31', '31/01/2027', '2027-02-30T00:00:00Z', '2027-01-31T23:59:59']) {
    assert.deepEqual(
      problems(create, at(bad)),
      [`/credentials/expirationDate Invalid ISO datetime (got "${bad}")`],
      bad,
    );
  }
});

test('capabilities: only the three known items', () => {
  const withCapabilities = (capabilities: unknown) => provider('p', 'github', { capabilities });
  assert.deepEqual(problems(create, withCapabilities(['git-provider', 'secret-manager', 'ci-cd-tool'])), []);
  assert.deepEqual(problems(create, withCapabilities([])), []);
  assert.equal(
    problems(create, withCapabilities(['git-provider', 'registry']))[0]!.startsWith('/capabilities/1 '),
    true,
  );
  assert.equal(problems(create, withCapabilities('git-provider')).length, 1);
});

test('base64CA must be the base64 of a PEM certificate', () => {
  assert.deepEqual(problems(create, provider('p', 'gitlab', { base64CA: CA_BASE64 })), []);
  const bad = {
    'not base64': 'not base64!',
    'base64 of text': Buffer.from('hello').toString('base64'),
    'a broken certificate': Buffer.from(
      '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n',
    ).toString('base64'),
  };
  for (const [what, base64CA] of Object.entries(bad)) {
    assert.equal(problems(create, provider('p', 'gitlab', { base64CA })).length, 1, what);
  }
});

test('proxy: url required and an http(s) URL; the password never echoed in an error', () => {
  assert.deepEqual(
    problems(
      create,
      provider('p', 'gitlab', { proxy: { url: 'http://proxy:3128', username: 'u', password: 'p' } }),
    ),
    [],
  );
  const found = problems(create, provider('p', 'gitlab', { proxy: { username: 'u', password: 7 } }));
  assert.deepEqual(found.sort(), [
    '/proxy/password Invalid input: expected string, received number',
    '/proxy/url Invalid input: expected string, received undefined',
  ]);
});

test('no error message carries a credential value', () => {
  const bodies = [
    provider('p', 'gitlab', {
      credentials: { type: 'token', content: { accessToken: 42, extra: `${SECRET_MARK}x` } },
    }),
    provider('p', 'gitlab', { credentials: `${SECRET_MARK}as-a-string` }),
    provider('p', 'gitlab', { credentials: { type: 'token', content: `${SECRET_MARK}as-content` } }),
    provider('p', 'gitlab', { proxy: { url: 'nope', password: [`${SECRET_MARK}in-array`] } }),
    provider('p', 'gitlab', {
      credentials: { type: 'm2m', content: { accessTokenURL: 'x', token: `${SECRET_MARK}m2m` } },
    }),
    `${SECRET_MARK}whole-body`,
  ];
  for (const body of bodies) {
    const found = problems(create, body);
    assert.ok(found.length > 0);
    assert.ok(!found.join('\n').includes(SECRET_MARK), found.join('\n'));
  }
});

test('PATCH: every field optional, providerId rejected, forms checked, matrix left to the merge', () => {
  assert.deepEqual(problems(patch, {}), []);
  assert.deepEqual(problems(patch, { credentials: CREDENTIALS.m2m }), []);
  assert.deepEqual(problems(patch, { providerId: 'other', label: 'x' }), [
    '/ Unrecognized key: "providerId"',
  ]);
  assert.deepEqual(problems(patch, { urls: { base: 'https://a.example' } }), [
    '/urls/apiBase Invalid input: expected string, received undefined',
  ]);
  assert.equal(problems(patch, { type: 'svn' }).length, 1);
  assert.equal(problems(patch, { credentials: { type: 'kerberos', content: {} } }).length, 1);
});

test('before Console 10.8: capabilities and expirationDate are unknown properties', () => {
  const old = SCHEMAS.before108;
  const withNew = provider('p', 'gitlab', {
    capabilities: ['git-provider'],
    credentials: { ...CREDENTIALS.token, expirationDate: '2027-01-01T00:00:00Z' },
  });
  assert.deepEqual(problems(old.create, withNew).sort(), [
    '/ Unrecognized key: "capabilities"',
    '/credentials Unrecognized key: "expirationDate"',
  ]);
  assert.deepEqual(problems(old.create, provider('p', 'gitlab', { credentials: CREDENTIALS.token })), []);
  assert.deepEqual(problems(old.patch, { capabilities: [] }), ['/ Unrecognized key: "capabilities"']);
});

interface JsonSchemaNode {
  const?: string;
  format?: string;
  additionalProperties?: boolean;
  required?: string[];
  properties: Record<string, JsonSchemaNode>;
  oneOf: JsonSchemaNode[];
}

test('the JSON Schema states the rules: closed objects, required fields, one branch per provider type', () => {
  const schema = z.toJSONSchema(create, { io: 'input' }) as unknown as JsonSchemaNode;
  assert.equal(schema.oneOf.length, PROVIDER_TYPES.length);
  const vault = schema.oneOf.find((branch) => branch.properties.type!.const === 'vault')!;
  assert.equal(vault.additionalProperties, false);
  assert.deepEqual(vault.required!.sort(), ['providerId', 'type', 'urls']);
  assert.deepEqual(vault.properties.urls!.required, ['base', 'apiBase']);
  const forms = vault.properties.credentials!.oneOf;
  assert.deepEqual(
    forms.map((form) => form.properties.type!.const),
    ['token', 'userPass', 'm2m'],
  );
  for (const form of forms) {
    assert.equal(form.additionalProperties, false);
    assert.equal(form.properties.content!.additionalProperties, false);
    assert.equal(form.properties.expirationDate!.format, 'date-time');
  }
});

test('the published JSON Schema accepts and rejects what the zod schema does', () => {
  const ajv = new Ajv2020({ allErrors: true });
  // ajv-formats is CommonJS: under NodeNext its default import is the module object.
  (addFormatsPlugin as unknown as typeof addFormatsPlugin.default)(ajv);
  // zod states base64 by a pattern as well; the format name is only informative.
  ajv.addFormat('base64', true);
  const validate = ajv.compile(z.toJSONSchema(create, { io: 'input' }));
  const bodies: unknown[] = [
    ...PROVIDER_TYPES.flatMap((type) =>
      CREDENTIAL_TYPES.map((credential) => provider('p', type, { credentials: CREDENTIALS[credential] })),
    ),
    provider('p', 'gitlab', { id: 'x' }),
    provider('p', 'gitlab', { capabilities: ['git-provider', 'nope'] }),
    provider('p', 'gitlab', { urls: { base: 'https://a.example' } }),
    provider('p', 'gitlab', { proxy: { username: 'u' } }),
    provider('p', 'gitlab', { credentials: { ...CREDENTIALS.token, expirationDate: 'tomorrow' } }),
    provider('p', 'gitlab', { credentials: { type: 'token', content: { accessToken: '' } } }),
    { type: 'gitlab', urls: { base: 'https://a.example', apiBase: 'https://a.example' } },
  ];
  for (const body of bodies) {
    assert.equal(validate(body), create.safeParse(body).success, JSON.stringify(body));
  }
});

test.run();
