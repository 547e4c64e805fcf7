/** Request bodies shared by the provider suites: one valid credential of each form, secrets easy to grep. */
import { readFileSync } from 'node:fs';
import type { CredentialType, ProviderType } from '../../../services/provider/matrix.ts';

/** Every secret below contains this marker, so a test can grep responses and logs for it. */
export const SECRET_MARK = 'S3CRET-';

export const CA_BASE64 = readFileSync(new URL('./ca.pem', import.meta.url)).toString('base64');

export const CREDENTIALS: Record<CredentialType, { type: CredentialType; content: Record<string, string> }> =
  {
    token: { type: 'token', content: { accessToken: `${SECRET_MARK}token` } },
    userPass: { type: 'userPass', content: { userName: 'bot', password: `${SECRET_MARK}password` } },
    m2m: {
      type: 'm2m',
      content: { accessTokenURL: 'https://vault.example.com/v1/auth/login', token: `${SECRET_MARK}jwt` },
    },
    client_credentials: {
      type: 'client_credentials',
      content: {
        accessTokenURL: 'https://jenkins.example.com/oauth2/login',
        clientId: 'id',
        clientSecret: `${SECRET_MARK}client`,
      },
    },
    'github-app': {
      type: 'github-app',
      content: {
        appId: '12345',
        installationId: '678',
        privateKeyBase64: Buffer.from(`-----BEGIN PRIVATE KEY-----\n${SECRET_MARK}key\n`).toString('base64'),
      },
    },
  };

export function provider(
  providerId: string,
  type: ProviderType = 'gitlab',
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    providerId,
    label: `label of ${providerId}`,
    type,
    urls: { base: 'https://git.example.com', apiBase: 'https://git.example.com/api' },
    ...extra,
  };
}
