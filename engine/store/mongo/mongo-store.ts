import { type AnyBulkWriteOperation, type Collection, type Db, type Document, MongoClient } from 'mongodb';
import type { JsonObject, JsonValue } from '../../../operators/record/json.ts';
import type { CompiledEdge } from '../../filter/index.ts';
import { toMongoFilter } from '../../filter/index.ts';
import { canonicalJson, keyId } from '../../record/key.ts';
import { StoreUnavailableError } from '../errors.ts';
import { checkKnown, edgeLookup, type StoreLayout } from '../layout.ts';
import { matchBatch } from '../match.ts';
import type { EmittedWrite, RecordWrite, Store, StoreCounters, StoredRecord, StoreEdge } from '../types.ts';
import { describeHosts, emittedCollection, indexPlan, redactUrl, sinkCollection } from './names.ts';
import { DEFAULT_RETRY, type RetryPolicy, withRetry } from './retry.ts';

export interface MongoStoreOptions extends StoreLayout {
  /** `persistence.config.url` (a Secret: never logged nor put in errors). */
  readonly url: string;
  /** Database name; null/absent: the one in the URL, else the driver's default. */
  readonly database?: string | null;
  readonly appName?: string | null;
  /** How long `open()` waits for a server before failing (default 5000). */
  readonly serverSelectionTimeoutMs?: number;
  readonly retry?: RetryPolicy;
}

interface RecordDocument {
  __pk: string;
  key: JsonObject;
  value: JsonObject;
}

/**
 * The emitted aggregate is kept as the exact text emitted: the next `before`, byte for byte.
 * Documents of streamfold 0.1 hold it as `aggregate` (a document) instead; they are still read.
 */
interface EmittedDocument {
  __pk: string;
  key: JsonObject;
  json: string;
  aggregate?: JsonValue;
}

/** Documents per reply for lookups: a batch's matches come back in one reply where possible. */
const LOOKUP_BATCH_SIZE = 10_000;

/**
 * The MongoDB store: one collection per node (`__sink_<configId>_<node>`, documents
 * `{__pk, key, value}`), one per head for emitted aggregates (`__emitted_<configId>_<head>`).
 * Every call is one request (plus `getMore`s for large answers); transient failures are retried.
 */
export class MongoStore implements Store {
  readonly counters: StoreCounters = { roundTrips: 0 };
  readonly #options: MongoStoreOptions;
  readonly #edge: (edge: StoreEdge) => CompiledEdge;
  readonly #nodes: ReadonlySet<string>;
  readonly #heads: ReadonlySet<string>;
  #client: MongoClient | null = null;
  #db: Db | null = null;

  constructor(options: MongoStoreOptions) {
    this.#options = options;
    this.#edge = edgeLookup(options);
    this.#nodes = new Set(options.nodes);
    this.#heads = new Set(options.heads);
  }

  async open(): Promise<void> {
    if (this.#client) return;
    const { url, appName, database } = this.#options;
    const client = new MongoClient(url, {
      serverSelectionTimeoutMS: this.#options.serverSelectionTimeoutMs ?? 5000,
      monitorCommands: true,
      ...(appName ? { appName } : {}),
    });
    client.on('commandStarted', () => this.counters.roundTrips++);
    try {
      await client.connect();
      await client.db(database ?? undefined).command({ ping: 1 });
    } catch (err) {
      await client.close().catch(() => {});
      throw new StoreUnavailableError(
        `MongoDB is unreachable at ${describeHosts(url)}: ${redactUrl((err as Error).message, url)}`,
      );
    }
    this.#client = client;
    this.#db = client.db(database ?? undefined);
    for (const plan of indexPlan(this.#options)) {
      await this.#retry(() =>
        this.#database()
          .collection(plan.collection)
          .createIndexes([...plan.indexes]),
      );
    }
  }

  async close(): Promise<void> {
    const client = this.#client;
    this.#client = null;
    this.#db = null;
    await client?.close();
  }

  async ping(): Promise<void> {
    await this.#database().command({ ping: 1 });
  }

  async write(node: string, writes: readonly RecordWrite[]): Promise<void> {
    if (writes.length === 0) return;
    const operations: AnyBulkWriteOperation<RecordDocument>[] = writes.map((w) => {
      const __pk = keyId(w.ck);
      return w.kind === 'delete'
        ? { deleteOne: { filter: { __pk } } }
        : {
            replaceOne: { filter: { __pk }, replacement: { __pk, key: w.key, value: w.value }, upsert: true },
          };
    });
    const collection = this.#sink(node);
    await this.#retry(() => collection.bulkWrite(operations, { ordered: !distinctKeys(writes) }));
  }

  async get(node: string, cks: readonly string[]): Promise<Map<string, StoredRecord>> {
    const collection = this.#sink(node);
    if (cks.length === 0) return new Map();
    const docs = await this.#retry(() =>
      collection.find({ __pk: { $in: cks.map(keyId) } }, { batchSize: LOOKUP_BATCH_SIZE }).toArray(),
    );
    return new Map(docs.map((d) => toRecord(d)).map((r) => [r.ck, r]));
  }

  async findChildren(edge: StoreEdge, parents: readonly JsonObject[]): Promise<StoredRecord[][]> {
    const compiled = this.#edge(edge);
    return this.#find(compiled, 'down', parents, compiled.filter.downwardBatch(parents), compiled.child);
  }

  async findParents(edge: StoreEdge, children: readonly JsonObject[]): Promise<StoredRecord[][]> {
    const compiled = this.#edge(edge);
    return this.#find(compiled, 'up', children, compiled.filter.upwardBatch(children), compiled.parent);
  }

  async #find(
    edge: CompiledEdge,
    direction: 'down' | 'up',
    anchors: readonly JsonObject[],
    query: ReturnType<CompiledEdge['filter']['downwardBatch']>,
    node: string,
  ): Promise<StoredRecord[][]> {
    const collection = this.#sink(node);
    if (query === false || anchors.length === 0) return anchors.map(() => []);
    const docs = await this.#retry(() =>
      collection.find(toMongoFilter(query), { batchSize: LOOKUP_BATCH_SIZE }).toArray(),
    );
    return matchBatch(edge.filter, direction, anchors, docs.map(toRecord));
  }

  async *scan(node: string, batchSize: number): AsyncIterable<StoredRecord[]> {
    const cursor = this.#sink(node).find({}, { batchSize }).sort({ __pk: 1 });
    let batch: StoredRecord[] = [];
    try {
      for await (const doc of cursor) {
        batch.push(toRecord(doc));
        if (batch.length >= batchSize) {
          yield batch;
          batch = [];
        }
      }
      if (batch.length > 0) yield batch;
    } finally {
      await cursor.close();
    }
  }

  async count(node: string): Promise<number> {
    const collection = this.#sink(node);
    return this.#retry(() => collection.countDocuments({}));
  }

  async getEmitted(head: string, cks: readonly string[]): Promise<Map<string, string>> {
    const collection = this.#emitted(head);
    if (cks.length === 0) return new Map();
    const docs = await this.#retry(() =>
      collection.find({ __pk: { $in: cks.map(keyId) } }, { batchSize: LOOKUP_BATCH_SIZE }).toArray(),
    );
    return new Map(docs.map((d) => [canonicalJson(d.key), d.json ?? JSON.stringify(d.aggregate)]));
  }

  async writeEmitted(head: string, writes: readonly EmittedWrite[]): Promise<void> {
    if (writes.length === 0) return;
    const collection = this.#emitted(head);
    const operations: AnyBulkWriteOperation<EmittedDocument>[] = writes.map((w) => {
      const __pk = keyId(w.ck);
      return w.json === null
        ? { deleteOne: { filter: { __pk } } }
        : { replaceOne: { filter: { __pk }, replacement: { __pk, key: w.key, json: w.json }, upsert: true } };
    });
    await this.#retry(() => collection.bulkWrite(operations, { ordered: !distinctKeys(writes) }));
  }

  #retry<T>(operation: () => Promise<T>): Promise<T> {
    return withRetry(operation, this.#options.retry ?? DEFAULT_RETRY);
  }

  #database(): Db {
    if (!this.#db) throw new StoreUnavailableError('MongoStore is not open: call open() first');
    return this.#db;
  }

  #sink(node: string): Collection<RecordDocument> {
    checkKnown('node', node, this.#nodes);
    return this.#database().collection<RecordDocument>(sinkCollection(this.#options.configId, node));
  }

  #emitted(head: string): Collection<EmittedDocument> {
    checkKnown('head', head, this.#heads);
    return this.#database().collection<EmittedDocument>(emittedCollection(this.#options.configId, head));
  }
}

/**
 * Whether every write names another key, so their order cannot matter. An ordered bulk is sent
 * as one command per run of the same operation (upserts, then deletes, then upserts...); an
 * unordered one as one command per operation type: 2 round trips instead of up to one per write.
 */
function distinctKeys(writes: readonly { readonly ck: string }[]): boolean {
  return new Set(writes.map((w) => w.ck)).size === writes.length;
}

function toRecord(doc: Document): StoredRecord {
  const { key, value } = doc as RecordDocument;
  return { ck: canonicalJson(key), key, value };
}
