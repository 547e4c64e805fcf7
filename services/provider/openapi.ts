import { ERROR_BODY_SCHEMA, errorBody, openApiSchema } from '../kit/index.ts';
import { CONSOLE_VERSION_HEADER } from './console-version.ts';
import { SCHEMAS } from './provider-schema.ts';
import { pageQuerySchema, TOTAL_COUNT_HEADER } from './routes.ts';
import { providerViewSchema } from './stored-provider.ts';

const errors = (...statuses: number[]) =>
  Object.fromEntries(
    statuses.map((status) => [
      String(status),
      {
        description: errorBody(status, '').error,
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      },
    ]),
  );

const json = (ref: string, description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: `#/components/schemas/${ref}` } } },
});

const pathParameter = (name: string) => ({ name, in: 'path', required: true, schema: { type: 'string' } });
const versionHeader = {
  name: CONSOLE_VERSION_HEADER,
  in: 'header',
  required: false,
  description:
    'Console version of the caller; below 10.8, `capabilities` and `credentials.expirationDate` are rejected',
  schema: { type: 'string', pattern: '^\\d+\\.\\d+(\\.\\d+)?$' },
};

/** The OpenAPI 3.1 document of the provider API, its schemas generated from the validating zod schemas. */
export function openApiDocument(info: { name: string; version: string }): Record<string, unknown> {
  const queryProperties = openApiSchema(pageQuerySchema, 'output').properties as Record<string, object>;
  const common = errors(401, 403, 503);
  return {
    openapi: '3.1.0',
    info: { title: `${info.name} provider API`, version: info.version },
    security: [{ sid: [] }, { bearer: [] }],
    paths: {
      '/api/backend/tenants/{tenantId}/providers': {
        parameters: [pathParameter('tenantId')],
        post: {
          summary: 'Create a provider',
          parameters: [versionHeader],
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { $ref: '#/components/schemas/ProviderCreate' } } },
          },
          responses: { '201': json('Provider', 'Created'), ...errors(400, 409, 413, 415), ...common },
        },
        get: {
          summary: 'List the providers of a tenant, by providerId, one page',
          parameters: Object.entries(queryProperties).map(([name, schema]) => ({
            name,
            in: 'query',
            schema,
          })),
          responses: {
            '200': {
              description: `One page; the header ${TOTAL_COUNT_HEADER} counts all`,
              headers: { [TOTAL_COUNT_HEADER]: { schema: { type: 'integer' } } },
              content: {
                'application/json': {
                  schema: { type: 'array', items: { $ref: '#/components/schemas/Provider' } },
                },
              },
            },
            ...errors(400),
            ...common,
          },
        },
      },
      '/api/backend/tenants/{tenantId}/providers/{providerId}': {
        parameters: [pathParameter('tenantId'), pathParameter('providerId')],
        get: {
          summary: 'Read a provider',
          responses: { '200': json('Provider', 'The provider'), ...errors(404), ...common },
        },
        patch: {
          summary:
            'Change a provider: fields sent replace the stored ones; stored credentials are kept unless sent',
          parameters: [versionHeader],
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { $ref: '#/components/schemas/ProviderPatch' } } },
          },
          responses: { '200': json('Provider', 'Changed'), ...errors(400, 404, 409, 413, 415), ...common },
        },
        delete: {
          summary: 'Delete a provider',
          responses: { '204': { description: 'Deleted' }, ...errors(404), ...common },
        },
      },
    },
    components: {
      securitySchemes: {
        sid: { type: 'apiKey', in: 'cookie', name: 'sid' },
        bearer: { type: 'http', scheme: 'bearer' },
      },
      schemas: {
        ProviderCreate: openApiSchema(SCHEMAS.current.create),
        ProviderPatch: openApiSchema(SCHEMAS.current.patch),
        Provider: openApiSchema(providerViewSchema, 'output'),
        Error: ERROR_BODY_SCHEMA,
      },
    },
  };
}
