import { z } from 'zod';
import type { CredentialType } from './matrix.ts';

const secret = () => z.string().min(1);

/** The `content` of each credential form: every field required, nothing else allowed. */
const CONTENT = {
  token: z.strictObject({ accessToken: secret() }),
  userPass: z.strictObject({ userName: z.string().min(1), password: secret() }),
  m2m: z.strictObject({ accessTokenURL: z.url(), token: secret() }),
  client_credentials: z.strictObject({
    accessTokenURL: z.url(),
    clientId: z.string().min(1),
    clientSecret: secret(),
  }),
  'github-app': z.strictObject({
    appId: z.string().min(1),
    installationId: z.string().min(1),
    privateKeyBase64: secret().base64(),
  }),
} as const satisfies Record<CredentialType, z.ZodObject>;

export interface SchemaVersion {
  /** Console 10.8 added `capabilities` and `credentials.expirationDate`. */
  readonly since108: boolean;
}

/** One credential form: `{type, content, expirationDate?}` (the date only from Console 10.8). */
function credentialForm(type: CredentialType, { since108 }: SchemaVersion) {
  const form = z.strictObject({
    type: z.literal(type),
    content: CONTENT[type],
    expirationDate: z.iso
      .datetime({ offset: true })
      .optional()
      .meta({ description: 'RFC 3339 date-time; since Console 10.8' }),
  });
  // Typed as the current form: the older one only lacks an optional field.
  return since108 ? form : (form.omit({ expirationDate: true }) as unknown as typeof form);
}

/** `credentials`: one of the given forms, told apart by `type`. */
export function credentialsSchema(types: readonly CredentialType[], version: SchemaVersion) {
  const [first, ...rest] = types.map((type) => credentialForm(type, version));
  return z.discriminatedUnion('type', [first!, ...rest]);
}
