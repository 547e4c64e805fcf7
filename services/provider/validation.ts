import type { z } from 'zod';
import { type ErrorDetail, HttpError } from '../kit/index.ts';

type Path = readonly PropertyKey[];

const PUBLIC_UNDER = { credentials: ['type', 'expirationDate'], proxy: ['url', 'username'] } as const;

/**
 * Whether the value at `path` may be echoed in an error: anything under `credentials` or `proxy`
 * is a secret but the fields listed in {@link PUBLIC_UNDER}, and so may be the body itself.
 */
function isPublicPath([first, second]: Path): boolean {
  if (first === undefined) return false; // the body itself
  if (first !== 'credentials' && first !== 'proxy') return true;
  return (PUBLIC_UNDER[first] as readonly PropertyKey[]).includes(second as PropertyKey);
}

const isPrimitive = (value: unknown) =>
  value === null || ['string', 'number', 'boolean'].includes(typeof value);

function valueAt(input: unknown, path: Path): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/** `/credentials/content/token`, escaped as a JSON pointer; `/` for the body itself (as rest2broker). */
export function jsonPointer(path: Path): string {
  return path.map((key) => `/${String(key).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('') || '/';
}

/** One {@link ErrorDetail} per issue: where, which rule and, unless it may be a secret, the value found. */
export function describeIssues(issues: readonly z.core.$ZodIssue[], input: unknown): ErrorDetail[] {
  return issues.map((issue) => {
    const value = valueAt(input, issue.path);
    // Only a primitive is shown: an object or array could carry a secret deeper down.
    const shown = isPrimitive(value) && isPublicPath(issue.path) ? ` (got ${JSON.stringify(value)})` : '';
    return { path: jsonPointer(issue.path), message: `${issue.message}${shown}` };
  });
}

/** Parses `input` with `schema` or throws a 400 listing every problem. */
export function parseOr400<Schema extends z.ZodType>(schema: Schema, input: unknown): z.output<Schema> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const errors = describeIssues(result.error.issues, input);
  throw new HttpError(400, `invalid request: ${errors.length} problem(s)`, { errors });
}
