/**
 * Property: any request path, percent-encoded or not, matches the route Rönd's router would
 * choose (static > parameter > wildcard at each segment, the first declaration winning a tie) or
 * none, and never a different route through an encoding, a dot segment or a double slash. The
 * oracle below restates that rule by brute force over every declared route; the sidecar's
 * `RouteTable` is a trie. End to end, the running sidecar answers random raw paths without a 5xx.
 */
import * as assert from 'node:assert/strict';
import { connect } from 'node:net';
import fc from 'fast-check';
import { type PermissionRoute, routesFromOpenApi } from '../../services/sidecar/permissions.ts';
import { RouteTable } from '../../services/sidecar/router.ts';
import { sidecarForSuite } from '../services/sidecar/harness.ts';
import { test } from '../support/suite.ts';
import { checkProperty } from './property.ts';

const ALL_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'];
const PARAM = /^(?:\{\w+\}|:\w+)$/;

/** Segments after decoding unreserved escapes; none for dot segments and inner empty segments. */
function canonical(path: string): string[] | undefined {
  if (!path.startsWith('/')) return undefined;
  const segments = path
    .slice(1)
    .split('/')
    .map((s) =>
      s.replace(/%[0-9a-fA-F]{2}/g, (e) => {
        const char = String.fromCharCode(Number.parseInt(e.slice(1), 16));
        return /[A-Za-z0-9\-._~]/.test(char) ? char : e;
      }),
    );
  if (segments.some((s, i) => s === '.' || s === '..' || (s === '' && i < segments.length - 1)))
    return undefined;
  return segments;
}

/** The priority of `template` for `segments` (0 static, 1 parameter, 2 wildcard), or undefined. */
function priority(template: string, segments: readonly string[]): number[] | undefined {
  const parts = template.split('/').slice(1);
  const key: number[] = [];
  for (const [i, part] of parts.entries()) {
    if (part === '*' || (part.startsWith('*') && i === parts.length - 1))
      return i < segments.length ? [...key, 2] : undefined;
    const segment = segments[i];
    if (segment === undefined) return undefined;
    if (PARAM.test(part)) {
      if (segment === '') return undefined;
      key.push(1);
    } else if (part === segment) key.push(0);
    else return undefined;
  }
  return parts.length === segments.length ? key : undefined;
}

const before = (a: number[], b: number[]) => {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! < b[i]!;
  return false;
};

function oracle(routes: readonly PermissionRoute[], method: string, path: string): string | undefined {
  const segments = canonical(path);
  if (!segments) return undefined;
  const explicit = new Set(routes.map((r) => `${r.path} ${r.method.toUpperCase()}`));
  let best: { key: number[]; template: string } | undefined;
  for (const route of routes) {
    const m = route.method.toUpperCase();
    const methods = m === 'ALL' ? ALL_METHODS.filter((x) => !explicit.has(`${route.path} ${x}`)) : [m];
    if (!methods.includes(method)) continue;
    const { path: p } = route;
    const twin = p.endsWith('/') ? p.slice(0, -1) : `${p}/`;
    const variants =
      route.config.options.ignoreTrailingSlash && !p.endsWith('*') && p !== '/' ? [p, twin] : [p];
    for (const template of variants) {
      const key = priority(template, segments);
      if (key && (!best || before(key, best.key))) best = { key, template: route.path };
    }
  }
  return best?.template;
}

const segment = fc.constantFrom('a', 'b', 'ab', '{id}', ':p', '{a-b}', '*', '*rest', '');
const template = fc.array(segment, { minLength: 1, maxLength: 3 }).map((s) => `/${s.join('/')}`);
const routeSpecs = fc.array(
  fc.record({
    path: template,
    method: fc.constantFrom('get', 'post', 'all'),
    ignoreTrailingSlash: fc.boolean(),
  }),
  { minLength: 1, maxLength: 6 },
);
const pathSegment = fc.constantFrom(
  'a',
  'b',
  'ab',
  'c',
  '',
  '.',
  '..',
  '%2e',
  '%2E%2e',
  '.%2e',
  '%61',
  '%41',
  '%62',
  'a%62',
  '%2F',
  'a%2Fb',
  '%2f',
  '%zz',
  '%',
  '%25',
  '%7e',
  '~',
  '*',
  ';',
  'a;b',
  '%00',
  'é',
  '%C3%A9',
);
const rawPath = fc.array(pathSegment, { minLength: 1, maxLength: 4 }).map((s) => `/${s.join('/')}`);

function tableOf(specs: { path: string; method: string; ignoreTrailingSlash: boolean }[]) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const { path, method, ignoreTrailingSlash } of specs) {
    paths[path] ??= {};
    paths[path][method] = {
      'x-rond': { requestFlow: { policyName: `${method} ${path}` }, options: { ignoreTrailingSlash } },
    };
  }
  const routes = routesFromOpenApi({ paths }, 'fuzz');
  try {
    return { routes, table: new RouteTable(routes) };
  } catch {
    return undefined; // "/x" and "/x/" with ignoreTrailingSlash: a start-up error, as in Rönd
  }
}

test('any path matches the route the oracle chooses, or none', () => {
  checkProperty(
    'sidecar router',
    5000,
    routeSpecs,
    fc.constantFrom('GET', 'POST', 'PUT', 'HEAD'),
    rawPath,
    (specs, method, path) => {
      const built = tableOf(specs);
      if (!built) return;
      const found = built.table.find(method, path);
      assert.equal(found?.template, oracle(built.routes, method, path), `${method} ${path}`);
    },
  );
});

// Found by the property: before canonical matching, each of these matched a route an upstream
// would not have meant (`/api/*` for a path that resolves outside /api, a wildcard for `/admin`).
test('regressions: dot segments, double slashes and encoded letters cannot reach another route', () => {
  const built = tableOf([
    { path: '/api/*', method: 'all', ignoreTrailingSlash: false },
    { path: '/admin', method: 'get', ignoreTrailingSlash: false },
    { path: '/*', method: 'get', ignoreTrailingSlash: false },
  ])!;
  const find = (path: string) => built.table.find('GET', path)?.template;
  assert.equal(find('/api/../admin'), undefined);
  assert.equal(find('/api/%2e%2e/admin'), undefined);
  assert.equal(find('/api/./x'), undefined);
  assert.equal(find('//admin'), undefined);
  assert.equal(find('/%61dmin'), '/admin');
  assert.equal(find('/%61pi/x'), '/api/*');
  assert.equal(find('/api/a%2Fb'), '/api/*');
  assert.equal(find('/api/x/'), '/api/*');
});

/** One raw HTTP/1.1 request (any request target), resolving with the status code. */
function rawStatus(port: number, target: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.setTimeout(5000, () => socket.destroy(new Error(`no answer to ${target}`)));
    socket.on('data', (chunk) => {
      answer += chunk.toString('latin1');
      const status = /^HTTP\/1\.1 (\d{3})/.exec(answer);
      if (status) {
        socket.destroy();
        resolve(Number(status[1]));
      }
    });
    socket.on('error', reject);
    socket.on('close', () => reject(new Error(`closed without an answer to ${target}`)));
    socket.write(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
  });
}

const shared = sidecarForSuite(test);

test('the running sidecar: random raw paths answer without a 5xx', async () => {
  const port = Number(new URL(shared.sidecar.base).port);
  const paths = fc.sample(
    fc.oneof(
      rawPath,
      fc.string({ unit: 'binary-ascii', maxLength: 30 }).map((s) => `/${s}`),
    ),
    { numRuns: Number(process.env.FUZZ_RUNS ?? 300), seed: 42 },
  );
  const statuses = new Map<number, number>();
  for (const path of paths) {
    const status = await rawStatus(port, path.replace(/[\s]/g, '%20'));
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
    assert.ok(status < 500, `${status} for ${JSON.stringify(path)}`);
  }
  console.log(
    `  fuzz sidecar over HTTP: ${paths.length} requests, statuses ${JSON.stringify([...statuses])}`,
  );
});

test.run();
