import { HttpError } from '../kit/index.ts';
import type { ChangePublisher } from './changes.ts';
import type { CredentialCipher, SealContext } from './cipher.ts';
import type { CreateBody, PatchBody } from './provider-schema.ts';
import { unsupportedCredential } from './provider-schema.ts';
import type { Page, ProviderRepository } from './repository.ts';
import { type ProviderView, type StoredProvider, toView } from './stored-provider.ts';

type Credentials = NonNullable<CreateBody['credentials']>;
type Proxy = NonNullable<CreateBody['proxy']>;

/**
 * The provider operations behind the routes: secrets are sealed before anything is stored, reads
 * answer views, and every change is published (and acknowledged) before the caller gets its answer.
 */
export class Providers {
  readonly #repository: ProviderRepository;
  readonly #cipher: CredentialCipher;
  readonly #changes: ChangePublisher;
  readonly #now: () => Date;

  constructor(options: {
    repository: ProviderRepository;
    cipher: CredentialCipher;
    changes: ChangePublisher;
    now?: () => Date;
  }) {
    this.#repository = options.repository;
    this.#cipher = options.cipher;
    this.#changes = options.changes;
    this.#now = options.now ?? (() => new Date());
  }

  async create(tenantId: string, body: CreateBody): Promise<ProviderView> {
    const { providerId, credentials, proxy, ...fields } = body;
    const now = this.#now();
    const stored: StoredProvider = {
      ...fields,
      tenantId,
      providerId,
      ...(proxy && { proxy: this.#sealProxy(tenantId, providerId, proxy) }),
      ...(credentials && { credentials: this.#sealCredentials(tenantId, providerId, credentials) }),
      version: 1,
      createdAt: now,
      updatedAt: now,
    };
    await this.#repository.insert(stored);
    const view = toView(stored);
    await this.#changes.publish({
      key: { tenantId, providerId },
      value: { op: 'c', before: null, after: view },
    });
    return view;
  }

  /**
   * Fields sent replace the stored ones (`proxy` and `credentials` as a whole); fields not sent
   * are kept, stored credentials included. The credential matrix is checked on the result.
   */
  async update(tenantId: string, providerId: string, body: PatchBody): Promise<ProviderView> {
    const stored = await this.#repository.get(tenantId, providerId);
    const { credentials, proxy, ...fields } = body;
    const next: StoredProvider = {
      ...stored,
      ...fields,
      ...(proxy && { proxy: this.#sealProxy(tenantId, providerId, proxy) }),
      ...(credentials && { credentials: this.#sealCredentials(tenantId, providerId, credentials) }),
      version: stored.version + 1,
      updatedAt: this.#now(),
    };
    const unsupported = next.credentials && unsupportedCredential(next.type, next.credentials.type);
    if (unsupported) {
      const path = credentials ? '/credentials/type' : '/type';
      throw new HttpError(400, 'invalid request: 1 problem(s)', { errors: [{ path, message: unsupported }] });
    }
    await this.#repository.replace(next);
    const [before, after] = [toView(stored), toView(next)];
    await this.#changes.publish({ key: { tenantId, providerId }, value: { op: 'u', before, after } });
    return after;
  }

  async get(tenantId: string, providerId: string): Promise<ProviderView> {
    return toView(await this.#repository.get(tenantId, providerId));
  }

  async list(tenantId: string, page: Page): Promise<{ items: ProviderView[]; total: number }> {
    const { items, total } = await this.#repository.list(tenantId, page);
    return { items: items.map(toView), total };
  }

  async delete(tenantId: string, providerId: string): Promise<void> {
    const deleted = await this.#repository.delete(tenantId, providerId);
    await this.#changes.publish({
      key: { tenantId, providerId },
      value: { op: 'd', before: toView(deleted), after: null },
    });
  }

  #sealCredentials(tenantId: string, providerId: string, { type, expirationDate, content }: Credentials) {
    const context: SealContext = { tenantId, providerId, field: 'credentials' };
    return {
      type,
      ...(expirationDate !== undefined && { expirationDate }),
      content: this.#cipher.seal(content, context),
    };
  }

  #sealProxy(tenantId: string, providerId: string, { url, username, password }: Proxy) {
    const context: SealContext = { tenantId, providerId, field: 'proxy.password' };
    return {
      url,
      ...(username !== undefined && { username }),
      ...(password !== undefined && { password: this.#cipher.seal(password, context) }),
    };
  }
}
