import { X509Certificate } from 'node:crypto';
import { z } from 'zod';
import { credentialsSchema, type SchemaVersion } from './credentials-schema.ts';
import {
  CAPABILITIES,
  CREDENTIAL_TYPES,
  credentialTypesFor,
  PROVIDER_TYPES,
  type ProviderType,
} from './matrix.ts';

const httpUrl = () =>
  z.url({
    protocol: /^https?$/,
    error: (issue) => (issue.code === 'invalid_format' ? 'expected an http(s) URL' : undefined),
  });

/** Base64 of a PEM document holding at least one certificate that node:crypto can parse. */
const base64Certificate = z
  .string()
  .base64({ abort: true })
  .refine(isPemCertificate, { error: 'expected the base64 of a PEM certificate' })
  .meta({ description: 'CA certificate: a PEM certificate, base64-encoded' });

function isPemCertificate(base64: string): boolean {
  const pem = Buffer.from(base64, 'base64').toString('utf8');
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) return false;
  try {
    new X509Certificate(pem);
    return true;
  } catch {
    return false;
  }
}

const commonFields = {
  label: z.string().optional(),
  description: z.string().optional(),
  capabilities: z.array(z.enum(CAPABILITIES)).optional().meta({ description: 'since Console 10.8' }),
  urls: z.strictObject({ base: httpUrl(), apiBase: httpUrl() }),
  base64CA: base64Certificate.optional(),
  proxy: z
    .strictObject({ url: httpUrl(), username: z.string().optional(), password: z.string().optional() })
    .optional(),
};

/** The body object, without `capabilities` before Console 10.8 (typed as the current one, a superset). */
function versioned<Shape extends z.ZodRawShape & { capabilities: z.ZodType }>(
  shape: Shape,
  { since108 }: SchemaVersion,
) {
  const body = z.strictObject(shape);
  return since108 ? body : (body.omit({ capabilities: true } as never) as unknown as typeof body);
}

export const providerIdSchema = z.string().min(1).max(256);

/**
 * The POST body: one object per provider type (`type` tells them apart), each accepting only the
 * credential forms its type supports, so the matrix is part of the schema and of its JSON Schema.
 */
export function createBodySchema(version: SchemaVersion) {
  const [first, ...rest] = PROVIDER_TYPES.map((type) =>
    versioned(
      {
        providerId: providerIdSchema,
        type: z.literal(type),
        ...commonFields,
        credentials: credentialsSchema(credentialTypesFor(type), version).optional(),
      },
      version,
    ),
  );
  return z.discriminatedUnion('type', [first!, ...rest]);
}

/**
 * The PATCH body: the POST fields but `providerId` (it is in the path), each optional, so a
 * client can change only what it sends (the reference's sample sends only `credentials`). The
 * matrix is checked against the provider merged with the stored one ({@link unsupportedCredential}).
 */
export function patchBodySchema(version: SchemaVersion) {
  return versioned(
    {
      type: z.enum(PROVIDER_TYPES),
      ...commonFields,
      credentials: credentialsSchema(CREDENTIAL_TYPES, version),
    },
    version,
  ).partial();
}

export type CreateBody = z.output<ReturnType<typeof createBodySchema>>;
export type PatchBody = z.output<ReturnType<typeof patchBodySchema>>;

/** The matrix rule as a message, or undefined when `credentialType` is supported by `providerType`. */
export function unsupportedCredential(
  providerType: ProviderType,
  credentialType: string,
): string | undefined {
  const supported = credentialTypesFor(providerType);
  return supported.some((type) => type === credentialType)
    ? undefined
    : `credentials of type "${credentialType}" are not supported by providers of type "${providerType}" (supported: ${supported.join(', ')})`;
}

/** Both schema generations, built once. */
export const SCHEMAS = {
  current: { create: createBodySchema({ since108: true }), patch: patchBodySchema({ since108: true }) },
  before108: { create: createBodySchema({ since108: false }), patch: patchBodySchema({ since108: false }) },
} as const;
