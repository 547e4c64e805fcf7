import { HttpError } from '../kit/index.ts';
import type { ChangeRelay } from './change-relay.ts';
import type { CredentialCipher, SealContext } from './cipher.ts';
import type { CreateBody, PatchBody } from './provider-schema.ts';
import { unsupportedCredential } from './provider-schema.ts';
import type { Page, ProviderRepository } from './repository.ts';
import {
  type Outbox,
  type PendingChange,
  type ProviderView,
  type StoredProvider,
  toView,
} from './stored-provider.ts';

type Credentials = NonNullable<CreateBody['credentials']>;
type Proxy = NonNullable<CreateBody['proxy']>;

/**
 * The provider operations behind the routes: secrets are sealed before anything is stored, reads
 * answer views. With a relay, every change is stored as pending in the same write as the record
 * and delivered (acknowledged) before the caller gets its answer.
 */
export class Providers {
  readonly #repository: ProviderRepository;
  readonly #cipher: CredentialCipher;
  readonly #relay: ChangeRelay | undefined;
  readonly #now: () => Date;

  constructor(options: {
    repository: ProviderRepository;
    cipher: CredentialCipher;
    /** Without it (no changes topic) nothing is marked pending or produced. */
    relay?: ChangeRelay;
    now?: () => Date;
  }) {
    this.#repository = options.repository;
    this.#cipher = options.cipher;
    this.#relay = options.relay;
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
    const view = toView(stored);
    await this.#repository.insert({
      ...stored,
      ...this.#withPending(undefined, { op: 'c', before: null, after: view }),
    });
    await this.#relay?.deliver(tenantId, providerId);
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
    const [before, after] = [toView(stored), toView(next)];
    await this.#repository.replace({ ...next, ...this.#withPending(stored, { op: 'u', before, after }) });
    await this.#relay?.deliver(tenantId, providerId);
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
    if (!this.#relay) {
      await this.#repository.delete(tenantId, providerId);
      return;
    }
    // The record stays, reduced to its pending changes, until the `d` change is acknowledged.
    await this.#repository.delete(tenantId, providerId, (found) => ({
      tenantId,
      providerId,
      deleted: true,
      version: found.version + 1,
      ...this.#withPending(found, { op: 'd', before: toView(found), after: null }),
    }));
    await this.#relay.deliver(tenantId, providerId);
  }

  /** The outbox of a record after a write that adds `change` to what `previous` had pending. */
  #withPending(previous: Outbox | undefined, change: PendingChange): Outbox {
    if (!this.#relay) return {};
    return {
      pendingChanges: [...(previous?.pendingChanges ?? []), change],
      pendingSince: previous?.pendingSince ?? this.#now(),
    };
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
