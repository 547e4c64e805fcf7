/**
 * Route matching as Rönd's (bunrouter): OAS templates with `{id}` or `:id` segments and a trailing
 * `*` matching every sub-path, static > parameter > wildcard at each segment, method `all` for
 * the methods a path does not declare itself, matching on the escaped path, and a trailing slash
 * that matters unless the operation sets `options.ignoreTrailingSlash`.
 *
 * Stricter than Rönd where a path could mean one route here and another upstream: percent-encoded
 * unreserved characters (`%61` for `a`, RFC 3986 §6.2.2.2) are decoded before matching, since an
 * upstream decodes them; a path with a dot segment (`..`, `.`, `%2e%2e`) or an empty segment
 * (`//`) matches no route, since an upstream may resolve or merge them into another path.
 */
import { type PermissionRoute, PermissionsError, type RondConfig } from './permissions.ts';

/** The methods `all` stands for, as in Rönd. */
const ALL_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'];

export interface RouteMatch {
  readonly config: RondConfig;
  /** The template as written in the permissions file, for logs and metrics. */
  readonly template: string;
  /** Parameter values as they appear in the escaped path (Rönd's mux uses the encoded path). */
  readonly pathParams: Record<string, string>;
}

interface Leaf {
  readonly config: RondConfig;
  readonly template: string;
  readonly paramNames: readonly string[];
}

interface Node {
  readonly statics: Map<string, Node>;
  param?: Node;
  /** Terminal `*`: method → leaf. */
  wildcard?: Map<string, Leaf>;
  readonly leaves: Map<string, Leaf>;
}

const newNode = (): Node => ({ statics: new Map(), leaves: new Map() });
const PARAM = /^(?:\{(\w+)\}|:(\w+))$/;

export class RouteTable {
  private readonly root = newNode();

  /** `routes`: as declared, kept for the standalone API's OpenAPI document. */
  constructor(readonly routes: readonly PermissionRoute[]) {
    checkTrailingSlashTwins(routes);
    const explicit = new Set(routes.map((r) => `${r.path} ${r.method.toUpperCase()}`));
    for (const route of routes) {
      const method = route.method.toUpperCase();
      const methods =
        method === 'ALL' ? ALL_METHODS.filter((m) => !explicit.has(`${route.path} ${m}`)) : [method];
      for (const path of variants(route)) for (const m of methods) this.add(path, m, route);
    }
  }

  find(method: string, escapedPath: string): RouteMatch | undefined {
    const segments = canonicalSegments(escapedPath);
    if (!segments) return undefined;
    const values: string[] = [];
    const leaf = this.walk(this.root, segments, 0, method.toUpperCase(), values);
    if (!leaf) return undefined;
    const pathParams: Record<string, string> = {};
    leaf.paramNames.forEach((name, i) => {
      pathParams[name] = values[i] as string;
    });
    return { config: leaf.config, template: leaf.template, pathParams };
  }

  private add(path: string, method: string, route: PermissionRoute): void {
    const segments = path.split('/').slice(1);
    const paramNames: string[] = [];
    let node = this.root;
    for (const [i, segment] of segments.entries()) {
      if (segment === '*' || (segment.startsWith('*') && i === segments.length - 1)) {
        node.wildcard ??= new Map();
        setOnce(node.wildcard, method, { config: route.config, template: route.path, paramNames });
        return;
      }
      const param = PARAM.exec(segment);
      if (param) {
        paramNames.push((param[1] ?? param[2]) as string);
        node.param ??= newNode();
        node = node.param;
      } else {
        const next = node.statics.get(segment) ?? newNode();
        node.statics.set(segment, next);
        node = next;
      }
    }
    setOnce(node.leaves, method, { config: route.config, template: route.path, paramNames });
  }

  private walk(
    node: Node,
    segments: string[],
    i: number,
    method: string,
    values: string[],
  ): Leaf | undefined {
    if (i === segments.length) return node.leaves.get(method);
    const segment = segments[i] as string;
    const child = node.statics.get(segment);
    const viaStatic = child && this.walk(child, segments, i + 1, method, values);
    if (viaStatic) return viaStatic;
    if (node.param && segment !== '') {
      values.push(segment);
      const viaParam = this.walk(node.param, segments, i + 1, method, values);
      if (viaParam) return viaParam;
      values.pop();
    }
    return node.wildcard?.get(method);
  }
}

const UNRESERVED_ESCAPE = /%(2[dDeE]|3\d|[46][1-9a-fA-F]|[57][0-9aA]|5[fF]|7[eE])/g;

/**
 * The segments of an escaped path with unreserved characters decoded, or undefined when a segment
 * is a dot segment or empty (but the last: `/x/` has a trailing slash).
 */
function canonicalSegments(escapedPath: string): string[] | undefined {
  if (!escapedPath.startsWith('/')) return undefined;
  const segments = escapedPath
    .slice(1)
    .split('/')
    .map((segment) => segment.replace(UNRESERVED_ESCAPE, decodeURIComponent));
  const last = segments.length - 1;
  const ambiguous = segments.some((s, i) => s === '.' || s === '..' || (s === '' && i < last));
  return ambiguous ? undefined : segments;
}

/** The first declaration of a path and method wins, as the first registration does in a router. */
function setOnce(map: Map<string, Leaf>, method: string, leaf: Leaf): void {
  if (!map.has(method)) map.set(method, leaf);
}

/** The path itself and, with `ignoreTrailingSlash`, its twin with or without the final slash. */
function variants(route: PermissionRoute): string[] {
  const { path } = route;
  if (!route.config.options.ignoreTrailingSlash || path.endsWith('*') || path === '/') return [path];
  return [path, path.endsWith('/') ? path.slice(0, -1) : `${path}/`];
}

/**
 * As Rönd's start-up check: `/x` and `/x/` declaring the same method while either ignores the
 * trailing slash would be two answers for one request.
 */
function checkTrailingSlashTwins(routes: readonly PermissionRoute[]): void {
  const ignoring = new Map<string, Map<string, boolean>>();
  for (const route of routes) {
    const methods = route.method === 'all' ? ALL_METHODS : [route.method.toUpperCase()];
    const byMethod = ignoring.get(route.path) ?? new Map<string, boolean>();
    for (const m of methods)
      byMethod.set(m, (byMethod.get(m) ?? false) || route.config.options.ignoreTrailingSlash);
    ignoring.set(route.path, byMethod);
  }
  for (const [path, byMethod] of ignoring) {
    if (path.endsWith('/')) continue;
    const twin = ignoring.get(`${path}/`);
    if (!twin) continue;
    for (const [method, ignores] of byMethod)
      if (twin.has(method) && (ignores || twin.get(method)))
        throw new PermissionsError(
          `duplicate paths: "${path}" and "${path}/" with ignoreTrailingSlash flag active`,
        );
  }
}
