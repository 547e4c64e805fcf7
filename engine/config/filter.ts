import { z } from 'zod';
import {
  COMPARISON_OPERATORS,
  type ComparisonOperator,
  type DownwardRight,
  type GenericFilter,
} from '../filter/ast.ts';

export const fieldPathSegmentSchema = z.union([z.string(), z.int().min(0)], {
  error: 'must be a field name (string) or an array index (integer >= 0)',
});

export const fieldPathSchema = z.array(fieldPathSegmentSchema);

export const filterValueSchema = z.union(
  [
    z.string(),
    z.number(),
    z.boolean(),
    z.null(),
    z.array(z.string()),
    z.array(z.number()),
    z.array(z.boolean()),
  ],
  {
    error:
      'must be a string, number, boolean, null, or an array of only strings, only numbers or only booleans',
  },
);

export const repositoryFilterSchema = z.strictObject({ foreign: fieldPathSchema });

export const localFilterSchema = z.strictObject({ local: fieldPathSchema });

export const downwardRightSchema: z.ZodType<DownwardRight> = z.union([localFilterSchema, filterValueSchema], {
  error: 'must be {"local": <field path>} or a constant value',
});

/** Exactly two items: the child side, then the parent side or a constant. */
const comparisonArgsSchema = z.tuple([repositoryFilterSchema, downwardRightSchema]);

function comparisonSchema<Op extends ComparisonOperator>(op: Op) {
  return z.strictObject({ [op]: comparisonArgsSchema } as Record<Op, typeof comparisonArgsSchema>);
}

export const regexMatchArgsSchema = z.strictObject({
  input: repositoryFilterSchema,
  regex: z.string(),
  options: z.string().nullable().optional(),
});

export const FILTER_KEYS = [
  '$and',
  '$or',
  '$not',
  ...COMPARISON_OPERATORS,
  '$isArray',
  '$regexMatch',
] as const;

/**
 * A boolean or an object with exactly one operator key (strict objects reject a second key).
 * Annotated with the AST type of `engine/filter/ast.ts`: this line fails to compile if the
 * parsed shape drifts from what the filter compiler consumes.
 */
export const genericFilterSchema: z.ZodType<GenericFilter> = z.lazy(() =>
  z.union(
    [
      z.boolean(),
      z.strictObject({ $and: z.array(genericFilterSchema) }),
      z.strictObject({ $or: z.array(genericFilterSchema) }),
      z.strictObject({ $not: genericFilterSchema }),
      ...COMPARISON_OPERATORS.map(comparisonSchema),
      z.strictObject({ $isArray: repositoryFilterSchema }),
      z.strictObject({ $regexMatch: regexMatchArgsSchema }),
    ],
    { error: `must be true, false or an object with exactly one of the keys ${FILTER_KEYS.join(', ')}` },
  ),
);
