import type { Logger } from 'pino';
import { HttpError } from '../kit/index.ts';
import type { CredentialCipher } from './cipher.ts';
import type { ProviderRepository } from './repository.ts';
import type { StoredProvider } from './stored-provider.ts';

export interface RotationSummary {
  /** Providers whose secrets were sealed again with the current key. */
  readonly resealed: number;
  /** Providers already under the current key (or without secrets). */
  readonly unchanged: number;
}

/** The provider with every secret sealed under the current key, or undefined when it already is. */
function resealed(cipher: CredentialCipher, provider: StoredProvider): StoredProvider | undefined {
  const { tenantId, providerId, credentials, proxy } = provider;
  const stale =
    (credentials && credentials.content.keyId !== cipher.currentKeyId) ||
    (proxy?.password && proxy.password.keyId !== cipher.currentKeyId);
  if (!stale) return undefined;
  return {
    ...provider,
    ...(credentials && {
      credentials: {
        ...credentials,
        content: cipher.reseal(credentials.content, { tenantId, providerId, field: 'credentials' }),
      },
    }),
    ...(proxy?.password && {
      proxy: {
        ...proxy,
        password: cipher.reseal(proxy.password, { tenantId, providerId, field: 'proxy.password' }),
      },
    }),
    version: provider.version + 1,
  };
}

const isStatus = (error: unknown, status: number) => error instanceof HttpError && error.status === status;

/** Reseals one provider; one changed by a request meanwhile is read again and retried. */
async function rotateOne(
  repository: ProviderRepository,
  cipher: CredentialCipher,
  listed: StoredProvider,
): Promise<'resealed' | 'unchanged' | 'deleted'> {
  let provider = listed;
  for (;;) {
    const next = resealed(cipher, provider);
    if (!next) return 'unchanged';
    try {
      await repository.replace(next);
      return 'resealed';
    } catch (error) {
      if (isStatus(error, 404)) return 'deleted';
      if (!isStatus(error, 409)) throw error;
    }
    try {
      provider = await repository.get(provider.tenantId, provider.providerId);
    } catch (error) {
      if (isStatus(error, 404)) return 'deleted';
      throw error;
    }
  }
}

/**
 * Seals every stored secret again with the current (first) key; it can run while the service
 * serves. A secret no configured key opens stops the command: the old key must stay listed until
 * the rotation has run.
 */
export async function rotateKeys(
  repository: ProviderRepository,
  cipher: CredentialCipher,
  logger: Logger,
): Promise<RotationSummary> {
  const counts = { resealed: 0, unchanged: 0, deleted: 0 };
  for await (const listed of repository.all()) counts[await rotateOne(repository, cipher, listed)] += 1;
  logger.info({ ...counts, keyId: cipher.currentKeyId }, 'key rotation done');
  return { resealed: counts.resealed, unchanged: counts.unchanged };
}
