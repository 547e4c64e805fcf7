import { z } from 'zod';

const encodingSchema = z.literal('base64').optional().meta({
  description: 'How the stored value is encoded; base64 values are decoded before use.',
});

export const envSecretSchema = z.strictObject({
  type: z.literal('env'),
  key: z.string().min(1).meta({ description: 'Name of the environment variable.' }),
  encoding: encodingSchema,
});

export const fileSecretSchema = z.strictObject({
  type: z.literal('file'),
  path: z.string().min(1).meta({ description: 'Path of the file, relative to the working directory.' }),
  key: z.string().min(1).optional().meta({
    description:
      'Field to read: a top-level field of a JSON object file, or a KEY=value line of a dotenv file. Absent: the whole file.',
  }),
  encoding: encodingSchema,
});

/**
 * A credential or client property value: the literal string, or a reference to an environment
 * variable or a file. Every value of this type is redacted in messages (see `redact.ts`).
 */
export const secretSchema = z.union(
  [z.string(), z.discriminatedUnion('type', [envSecretSchema, fileSecretSchema])],
  { error: 'must be a Secret: a string, {"type": "env", "key": ...} or {"type": "file", "path": ...}' },
);

export type Secret = z.output<typeof secretSchema>;
export type EnvSecret = z.output<typeof envSecretSchema>;
export type FileSecret = z.output<typeof fileSecretSchema>;
