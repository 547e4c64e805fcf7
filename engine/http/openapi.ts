import { ERROR_BODY_SCHEMA, type PackageInfo } from '../../services/kit/index.ts';

const ERROR = { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } };
const error = (description: string) => ({ description, content: ERROR });

/**
 * The OpenAPI 3.1 document of the engine's HTTP API (`GET /documentation/json`, platform.md):
 * the items route under `apiPrefix`, with the configuration's head nodes, and reflection.
 */
export function engineOpenApiDocument(info: PackageInfo, apiPrefix: string, heads: readonly string[]) {
  const prefix = apiPrefix === '/' ? '' : apiPrefix.replace(/\/$/, '');
  return {
    openapi: '3.1.0',
    info: { title: `${info.name} HTTP API`, version: info.version },
    paths: {
      [`${prefix}/heads/{node}/items/{key}`]: {
        get: {
          summary: 'The aggregated document of one head record',
          parameters: [
            { name: 'node', in: 'path', required: true, schema: { type: 'string', enum: [...heads] } },
            {
              name: 'key',
              in: 'path',
              required: true,
              description: 'The record key: base64url (unpadded) of its JSON object',
              schema: { type: 'string', pattern: '^[A-Za-z0-9_-]+$' },
            },
          ],
          responses: {
            '200': {
              description: 'The document',
              content: { 'application/json': { schema: { type: 'object' } } },
            },
            '400': error('The key is not base64url of a JSON object'),
            '404': error('Not a head node, or no such record'),
          },
        },
      },
      [`${prefix}/reflection/aggregation/graph`]: {
        get: {
          summary: 'The aggregation graph: nodes, edges with readable filters, heads',
          responses: {
            '200': {
              description: 'The graph',
              content: { 'application/json': { schema: { type: 'object' } } },
            },
          },
        },
      },
    },
    components: { schemas: { Error: ERROR_BODY_SCHEMA } },
  };
}
