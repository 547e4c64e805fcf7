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
import type { DeletedProvider, Outbox, StoredProvider } from './stored-provider.ts';

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
/** Records that are providers, not the {@link DeletedProvider} left while a `d` change is pending. */
const LIVE = { deleted: { $ne: true as const } };
const live = (tenantId: string, providerId: string) => ({ ...byId(tenantId, providerId), ...LIVE });

/** What the change relay needs of a record: which version holds which pending changes. */
export interface PendingRecord extends Outbox {
  readonly tenantId: string;
  readonly providerId: string;
  readonly version: number;
  readonly deleted?: true;
}

/**
 * The providers of every tenant in one collection, unique by `{tenantId, providerId}` through an
 * index, so of two concurrent creations of one id exactly one wins.
 */
export class ProviderRepository {
  readonly #collection: Collection<StoredProvider>;
  /** The same collection seen as records with an outbox, deleted ones included. */
  readonly #records: Collection<PendingRecord | DeletedProvider>;
  #indexed: Promise<unknown> | undefined;

  constructor(db: Db, collectionName: string) {
    this.#collection = db.collection<StoredProvider>(collectionName);
    this.#records = db.collection<PendingRecord | DeletedProvider>(collectionName);
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

  /**
   * 409 when the tenant has a provider with this id already. A deleted provider whose `d` change
   * is still pending is taken over: the new record keeps those changes before its own.
   */
  insert(provider: StoredProvider): Promise<void> {
    return available(async () => {
      await this.ensureIndexes();
      for (;;) {
        try {
          await this.#collection.insertOne({ ...provider });
          return;
        } catch (error) {
          if (!(error instanceof MongoServerError && error.code === DUPLICATE_KEY)) throw error;
        }
        const { tenantId, providerId } = provider;
        const deleted = await this.#records.findOne({ ...byId(tenantId, providerId), deleted: true });
        if (!deleted) throw new HttpError(409, `tenant "${tenantId}" has a provider "${providerId}" already`);
        const taken = await this.#records.replaceOne(
          { ...byId(tenantId, providerId), deleted: true, version: deleted.version },
          {
            ...provider,
            version: deleted.version + 1,
            pendingChanges: [...(deleted.pendingChanges ?? []), ...(provider.pendingChanges ?? [])],
            pendingSince: deleted.pendingSince ?? provider.pendingSince,
          },
        );
        if (taken.matchedCount === 1) return;
        // Its last change was acknowledged and it was removed meanwhile: insert again.
      }
    });
  }

  /** The provider, or a 404. */
  get(tenantId: string, providerId: string): Promise<StoredProvider> {
    return available(async () => {
      const found = await this.#collection.findOne(live(tenantId, providerId), { projection: { _id: 0 } });
      if (!found) throw notFound(tenantId, providerId);
      return found;
    });
  }

  list(tenantId: string, { skip, limit }: Page): Promise<{ items: StoredProvider[]; total: number }> {
    return available(async () => {
      const [items, total] = await Promise.all([
        this.#collection
          .find({ tenantId, ...LIVE }, { projection: { _id: 0 } })
          .sort({ providerId: 1 })
          .skip(skip)
          .limit(limit)
          .toArray(),
        this.#collection.countDocuments({ tenantId, ...LIVE }),
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
        { ...live(tenantId, providerId), version: version - 1 },
        { ...next },
      );
      if (result.matchedCount === 1) return;
      const exists = await this.#collection.countDocuments(live(tenantId, providerId), { limit: 1 });
      if (!exists) throw notFound(tenantId, providerId);
      throw new HttpError(409, `provider "${providerId}" was changed concurrently; read it again and retry`);
    });
  }

  /**
   * Deletes the provider and returns it as it was, or a 404. With `leave`, the record is replaced
   * by what `leave` makes of it (its pending `d` change) instead of removed. Read, then written
   * only at the version read, so the returned document is exactly what was deleted.
   */
  delete(
    tenantId: string,
    providerId: string,
    leave?: (found: StoredProvider) => DeletedProvider,
  ): Promise<StoredProvider> {
    return available(async () => {
      for (;;) {
        const found = await this.#collection.findOne(live(tenantId, providerId), { projection: { _id: 0 } });
        if (!found) throw notFound(tenantId, providerId);
        const atVersion = { ...byId(tenantId, providerId), version: found.version };
        const done = leave
          ? (await this.#records.replaceOne(atVersion, leave(found))).matchedCount
          : (await this.#collection.deleteOne(atVersion)).deletedCount;
        if (done === 1) return found;
      }
    });
  }

  /** The record's version and pending changes (deleted records included), or null. */
  pending(tenantId: string, providerId: string): Promise<PendingRecord | null> {
    return available(() =>
      this.#records.findOne(byId(tenantId, providerId), {
        projection: { _id: 0, tenantId: 1, providerId: 1, version: 1, deleted: 1, pendingChanges: 1 },
      }),
    );
  }

  /**
   * Drops the first `count` pending changes once acknowledged (`delivered`, as read before they
   * were produced). A write in between appended after them; the drop then applies to the record
   * as it is now. The version is bumped like any write, so a request that read the record before
   * the drop cannot write the dropped changes back (its write is a 409). A deleted record goes
   * with its last change.
   */
  settle(delivered: PendingRecord, count: number): Promise<void> {
    const { tenantId, providerId } = delivered;
    const sent = JSON.stringify(delivered.pendingChanges?.slice(0, count));
    return available(async () => {
      for (;;) {
        const record = await this.pending(tenantId, providerId);
        // Gone, or another relay dropped them already.
        if (JSON.stringify(record?.pendingChanges?.slice(0, count)) !== sent) return;
        const atVersion = { ...byId(tenantId, providerId), version: record!.version };
        const rest = record!.pendingChanges!.slice(count);
        const done =
          record!.deleted && rest.length === 0
            ? (await this.#records.deleteOne({ ...atVersion, deleted: true })).deletedCount
            : (
                await this.#records.updateOne(
                  atVersion,
                  rest.length === 0
                    ? {
                        $unset: { pendingChanges: '', pendingSince: '' },
                        $set: { version: record!.version + 1 },
                      }
                    : { $set: { pendingChanges: rest, version: record!.version + 1 } },
                )
              ).matchedCount;
        if (done === 1) return;
      }
    });
  }

  /** The ids of the records with changes pending since `cutoff` or before, oldest first. */
  pendingSince(cutoff: Date): Promise<{ tenantId: string; providerId: string }[]> {
    return available(() =>
      this.#records
        .find(
          { pendingSince: { $lte: cutoff } },
          { projection: { _id: 0, tenantId: 1, providerId: 1 }, sort: { pendingSince: 1 } },
        )
        .toArray(),
    );
  }

  /** Every provider of every tenant, for the key rotation. */
  all(): AsyncIterable<StoredProvider> {
    return this.#collection.find({ ...LIVE }, { projection: { _id: 0 } });
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
