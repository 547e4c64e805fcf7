import type { Context } from 'hono';
import type { z } from 'zod';
import { HttpError } from '../kit/index.ts';

/** Parses `input` with `schema`, or answers 400 listing every problem (paths as JSON pointers). */
export function validate<Schema extends z.ZodType>(
  schema: Schema,
  input: unknown,
  where: string,
): z.output<Schema> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw new HttpError(400, `invalid ${where}`, {
    errors: result.error.issues.map((issue) => ({
      path: `/${issue.path.map(String).join('/')}`,
      message: issue.message,
    })),
  });
}

/** A form-urlencoded or JSON body as a plain object; another media type answers 415. */
export async function readBody(c: Context): Promise<Record<string, unknown>> {
  const type = c.req.header('content-type')?.split(';')[0]?.trim().toLowerCase();
  if (type === 'application/x-www-form-urlencoded') {
    return Object.fromEntries(new URLSearchParams(await c.req.text()));
  }
  if (type === 'application/json') {
    const text = await c.req.text();
    if (text.trim() === '') return {};
    try {
      const body: unknown = JSON.parse(text);
      if (body !== null && typeof body === 'object' && !Array.isArray(body))
        return body as Record<string, unknown>;
    } catch {
      // answered below
    }
    throw new HttpError(400, 'the body must be a JSON object');
  }
  if (type === undefined && (await c.req.text()) === '') return {};
  throw new HttpError(415, 'the body must be application/json or application/x-www-form-urlencoded');
}
