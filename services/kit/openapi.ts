/**
 * Pieces every service's OpenAPI document (`GET /documentation/json`) shares: request and
 * response schemas from the same zod schemas that validate them, and the error body.
 *
 * @example
 *   const doc = { openapi: '3.1.0', paths: { '/x': { post: { requestBody: { content: {
 *     'application/json': { schema: openApiSchema(bodySchema) } } } } } },
 *     components: { schemas: { Error: ERROR_BODY_SCHEMA } } };
 */
import { z } from 'zod';

/** A zod schema as an OpenAPI 3.1 schema (JSON Schema 2020-12 without its `$schema` line). */
export function openApiSchema(schema: z.ZodType, io: 'input' | 'output' = 'input'): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' });
  return rest;
}

/** The JSON Schema of `ErrorBody`, the body of every error answer. */
export const ERROR_BODY_SCHEMA = {
  type: 'object',
  required: ['statusCode', 'error', 'message'],
  properties: {
    statusCode: { type: 'integer' },
    error: { type: 'string' },
    message: { type: 'string' },
    errors: {
      type: 'array',
      items: { type: 'object', properties: { path: { type: 'string' }, message: { type: 'string' } } },
    },
  },
} as const;
