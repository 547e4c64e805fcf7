import { z } from 'zod';
import { configurationSchema } from './configuration.ts';

/**
 * The draft-07 JSON Schema of a configuration as a user writes it (defaults optional). The
 * committed copy `config.schema.json` is regenerated with `streamfold schema`. The
 * cross-reference rules of `references.ts` are beyond JSON Schema and are not in it.
 */
export function configJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(configurationSchema, { target: 'draft-7', io: 'input' }) as Record<string, unknown>;
}
