import {
  type Collection,
  type Db,
  MongoNetworkError,
  MongoNotConnectedError,
  MongoServerError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
} from 'mongodb';
import { HttpError } from '../kit/index.ts';
import type { StoredProvider } from './stored-provider.ts';

const DUPLICATE_KEY = 11000;

export interface Page {
  readonly skip: number;
  readonly limit: number;
}

/** Socket errors the driver lets through unwrapped when a connection dies mid-write. */
const SOCKET_ERRORS = new Set(['EPIPE', 'ECONNRESET', 'ECONNREFUSED', 'ERR_STREAM_WRITE_AFTER_END']);

function isUnreachable(error: unknown): boolean {
  return (
    error instanceof MongoServerSelectionError ||
    error instanceof MongoNetworkError ||
    error instanceof MongoTopologyClosedError ||
    error instanceof MongoNotConnectedError ||
    SOCKET_ERRORS.has((error as NodeJS.ErrnoException)?.code ?? '')
  );
}

/** Throws a 503 for an unreachable MongoDB (the dependency, not the request, is at fault). */
async function available<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isUnreachable(error)) {
      throw new HttpError(503, 'the providers database is unavailable', { cause: error });
    }
    throw error;
  }
}

const byId = (tenantId: string, providerId: string) => ({ tenantId, providerId });

/**
 * The providers of every tenant in one collection, unique by `{tenantId, providerId}` through an
 * index, so of two concurrent creations of one id exactly one wins.
 */
export class ProviderRepository {
  readonly #collection: Collection<StoredProvider>;
  #indexed: Promise<unknown> | undefined;

  constructor(db: Db, collectionName: string) {
    this.#collection = db.collection<StoredProvider>(collectionName);
  }

  /**
   * Creates the unique index once; a failed attempt (MongoDB down at start) is retried by the next
   * call. Inserts wait for it: without it, duplicate ids could get in.
   */
  ensureIndexes(): Promise<unknown> {
    this.#indexed ??= available(() =>
      this.#collection.createIndex({ tenantId: 1, providerId: 1 }, { unique: true, name: 'tenant_provider' }),
    ).catch((error: unknown) => {
      this.#indexed = undefined;
      throw error;
    });
    return this.#indexed;
  }

  /** 409 when the tenant has a provider with this id already. */
  insert(provider: StoredProvider): Promise<void> {
    return available(async () => {
      await this.ensureIndexes();
      try {
        await this.#collection.insertOne({ ...provider });
      } catch (error) {
        if (error instanceof MongoServerError && error.code === DUPLICATE_KEY) {
          throw new HttpError(
            409,
            `tenant "${provider.tenantId}" has a provider "${provider.providerId}" already`,
          );
        }
        throw error;
      }
    });
  }

  /** The provider, or a 404. */
  get(tenantId: string, providerId: string): Promise<StoredProvider> {
    return available(async () => {
      const found = await this.#collection.findOne(byId(tenantId, providerId), { projection: { _id: 0 } });
      if (!found) throw notFound(tenantId, providerId);
      return found;
    });
  }

  list(tenantId: string, { skip, limit }: Page): Promise<{ items: StoredProvider[]; total: number }> {
    return available(async () => {
      const [items, total] = await Promise.all([
        this.#collection
          .find({ tenantId }, { projection: { _id: 0 } })
          .sort({ providerId: 1 })
          .skip(skip)
          .limit(limit)
          .toArray(),
        this.#collection.countDocuments({ tenantId }),
      ]);
      return { items, total };
    });
  }

  /**
   * Writes `next` over the stored provider if it still has `next.version - 1`: a concurrent update
   * in between is a 409 (the client re-reads and retries), a concurrent delete a 404.
   */
  replace(next: StoredProvider): Promise<void> {
    return available(async () => {
      const { tenantId, providerId, version } = next;
      const result = await this.#collection.replaceOne(
        { ...byId(tenantId, providerId), version: version - 1 },
        { ...next },
      );
      if (result.matchedCount === 1) return;
      const exists = await this.#collection.countDocuments(byId(tenantId, providerId), { limit: 1 });
      if (!exists) throw notFound(tenantId, providerId);
      throw new HttpError(409, `provider "${providerId}" was changed concurrently; read it again and retry`);
    });
  }

  /**
   * Deletes and returns the provider, or a 404. Read, then deleted only at the version read, so
   * the returned document is exactly what was deleted (findOneAndDelete would do it in one step,
   * but the jongodb stand-in rejects the command the driver sends for it).
   */
  delete(tenantId: string, providerId: string): Promise<StoredProvider> {
    return available(async () => {
      for (;;) {
        const found = await this.#collection.findOne(byId(tenantId, providerId), { projection: { _id: 0 } });
        if (!found) throw notFound(tenantId, providerId);
        const { deletedCount } = await this.#collection.deleteOne({
          ...byId(tenantId, providerId),
          version: found.version,
        });
        if (deletedCount === 1) return found;
      }
    });
  }

  /** Every provider of every tenant, for the key rotation. */
  all(): AsyncIterable<StoredProvider> {
    return this.#collection.find({}, { projection: { _id: 0 } });
  }

  /** Readiness: MongoDB answers and the unique index exists. */
  async ping(): Promise<void> {
    await this.ensureIndexes();
    await available(() => this.#collection.db.command({ ping: 1 }));
  }
}

function notFound(tenantId: string, providerId: string): HttpError {
  return new HttpError(404, `tenant "${tenantId}" has no provider "${providerId}"`);
}
