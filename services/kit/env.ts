import { z } from 'zod';

/** Raised by {@link parseEnv}; `problems` holds one line per bad variable. */
export class EnvError extends Error {
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    super(`invalid environment:\n  ${problems.join('\n  ')}`);
    this.name = 'EnvError';
    this.problems = problems;
  }
}

// Names that usually hold credentials: their values never appear in an error message.
const SECRET_NAME = /PASS|SECRET|TOKEN|CREDENTIAL|PRIVATE|API_?KEY/i;

/**
 * Parses environment variables with a zod object schema. On failure throws an {@link EnvError}
 * naming each bad variable, the rule and the value (`PORT: expected integer 0..65535 (got "abc")`),
 * except values of secret-looking names, which are hidden.
 */
export function parseEnv<Schema extends z.ZodObject>(
  schema: Schema,
  env: Readonly<Record<string, string | undefined>> = process.env,
): z.output<Schema> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const name = issue.path.map(String).join('.') || '(environment)';
    const value = typeof issue.path[0] === 'string' ? env[issue.path[0]] : undefined;
    if (value === undefined) return `${name}: required, not set`;
    const shown = SECRET_NAME.test(name) ? '<hidden>' : JSON.stringify(value);
    return `${name}: ${issue.message} (got ${shown})`;
  });
  throw new EnvError(problems);
}

/** An integer variable within `min..max`. */
export function envInteger(min: number, max: number) {
  const rule = `expected integer ${min}..${max}`;
  return z
    .string()
    .trim()
    .regex(/^-?\d+$/, { error: rule })
    .transform(Number)
    .refine((n) => n >= min && n <= max, { error: rule });
}

/** A TCP port, 0 meaning "any free port". */
export function envPort() {
  return envInteger(0, 65535);
}

/** `true`/`false`/`1`/`0`/`yes`/`no`, case-insensitive. */
export function envBoolean() {
  return z
    .string()
    .trim()
    .toLowerCase()
    .refine((s) => ['true', 'false', '1', '0', 'yes', 'no'].includes(s), {
      error: 'expected true, false, 1, 0, yes or no',
    })
    .transform((s) => s === 'true' || s === '1' || s === 'yes');
}

/** A JSON object of string values, e.g. extra librdkafka properties (`KAFKA_PROPERTIES`); unset: `{}`. */
export function envJsonObject() {
  return z
    .string()
    .optional()
    .transform((text, ctx) => {
      if (text === undefined) return {};
      try {
        const parsed: unknown = JSON.parse(text);
        if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
          return parsed as Record<string, string>;
      } catch {}
      ctx.addIssue({ code: 'custom', message: 'expected a JSON object' });
      return z.NEVER;
    });
}
