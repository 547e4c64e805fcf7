import type { PermissionRoute } from './permissions.ts';

const METHODS = ['get', 'post', 'put', 'patch', 'delete', 'head'];
const ERROR = {
  type: 'object',
  required: ['statusCode', 'error', 'message'],
  properties: { statusCode: { type: 'integer' }, error: { type: 'string' }, message: { type: 'string' } },
};

/**
 * The OpenAPI 3.1 document of the standalone API (`GET /documentation/json`, platform.md): each
 * permission route under `PATH_PREFIX_STANDALONE`, answering 200 with the decision's headers when
 * the policy allows, and Rönd's error body otherwise. `:id` segments are written `{id}`, a
 * trailing `*` a `{wildcard}` parameter (one segment of the many it matches).
 */
export function standaloneOpenApiDocument(
  routes: readonly PermissionRoute[],
  prefix: string,
  info: { name: string; version: string },
) {
  const paths: Record<string, Record<string, unknown>> = {};
  const explicit = new Set(routes.map((r) => `${r.path} ${r.method.toLowerCase()}`));
  for (const route of routes) {
    const { path, parameters } = oasPath(route.path);
    const method = route.method.toLowerCase();
    const methods = method === 'all' ? METHODS.filter((m) => !explicit.has(`${route.path} ${m}`)) : [method];
    const key = `${prefix}${path}`;
    const item = paths[key] ?? (parameters.length > 0 ? { parameters } : {});
    paths[key] = item;
    for (const m of methods) item[m] ??= operation(route);
  }
  return {
    openapi: '3.1.0',
    info: { title: `${info.name} standalone API`, version: info.version },
    paths,
    components: { schemas: { Error: ERROR } },
  };
}

function operation(route: PermissionRoute) {
  const policy = route.config.requestFlow.policyName;
  return {
    summary: policy ? `allowed when policy ${policy} allows` : 'no policy: always forbidden',
    responses: {
      '200': { description: 'allowed' },
      default: {
        description: 'forbidden, or the policy could not be evaluated',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      },
    },
  };
}

function oasPath(template: string): { path: string; parameters: unknown[] } {
  const parameters: unknown[] = [];
  const segments = template.split('/').map((segment, i, all) => {
    const name = /^(?:\{(\w+)\}|:(\w+))$/.exec(segment);
    const wildcard = segment === '*' || (segment.startsWith('*') && i === all.length - 1);
    if (!name && !wildcard) return segment;
    const parameter = name ? (name[1] ?? name[2])! : 'wildcard';
    parameters.push({
      name: parameter,
      in: 'path',
      required: true,
      schema: { type: 'string', minLength: 1 },
    });
    return `{${parameter}}`;
  });
  return { path: segments.join('/'), parameters };
}
