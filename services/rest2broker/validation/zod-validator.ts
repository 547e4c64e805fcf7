import type { z } from 'zod';
import type { BodyValidator, ValidationResult } from './body-validator.ts';

export function zodValidator(schema: z.ZodType): BodyValidator {
  return {
    prepare: async () => {},
    async validate(body): Promise<ValidationResult> {
      const result = await schema.safeParseAsync(body);
      if (result.success) return { ok: true, value: result.data };
      return {
        ok: false,
        errors: result.error.issues.map((issue) => ({
          path: `/${issue.path.map(String).join('/')}`,
          message: issue.message,
        })),
      };
    },
  };
}
