import type { JsonObject } from '../../operators/record/json.ts';

/**
 * The state-store seam. `MongoStore` keeps records in MongoDB, `MemoryStore` in process; both
 * answer every call identically (the conformance suite in `test/engine/store` proves it).
 * Every method is one round trip per call whatever the number of records passed, so a batch of
 * input costs O(1) round trips per node and per edge.
 */

/** The current state of one key of one node. `ck` is the canonical JSON of `key`. */
export interface StoredRecord {
  readonly ck: string;
  readonly key: JsonObject;
  readonly value: JsonObject;
  /** `JSON.stringify(value)`, when the store keeps it at hand (records held in memory). */
  readonly valueJson?: string;
}

export type RecordWrite =
  | { readonly kind: 'upsert'; readonly ck: string; readonly key: JsonObject; readonly value: JsonObject }
  | { readonly kind: 'delete'; readonly ck: string; readonly key: JsonObject };

/** The records linked to one anchor, ordered by `compareCanonical` of ck. Shared: do not mutate. */
export type LinkedRecords = readonly StoredRecord[];

/** The JSON text last emitted for a head key (`json: null` removes it). */
export interface EmittedWrite {
  readonly ck: string;
  readonly key: JsonObject;
  readonly json: string | null;
}

/**
 * What a store needs to know of one edge: its ends and its compiled filter. Built by
 * `engine/filter` from the configuration; the store uses the filter's query documents (MongoDB)
 * or predicates and hash indexes (memory).
 */
export interface StoreEdge<Filter = unknown> {
  readonly id: string;
  readonly parent: string;
  readonly child: string;
  readonly filter: Filter;
}

export interface StoreCounters {
  /** Requests sent to the backing database (0 for memory; the memory store counts calls). */
  roundTrips: number;
}

export interface Store {
  /** Connects and creates collections and indexes (idempotent). */
  open(): Promise<void>;
  close(): Promise<void>;
  /** Rejects when the backing database cannot be reached. */
  ping(): Promise<void>;

  /** Applies the writes of one node in order, as one bulk request. */
  write(node: string, writes: readonly RecordWrite[]): Promise<void>;
  /** Current records of these keys; absent keys are absent from the map. */
  get(node: string, cks: readonly string[]): Promise<Map<string, StoredRecord>>;

  /**
   * The records of `edge.child` linked to each parent (downward), aligned with `parents`,
   * each list ordered by `compareCanonical` of `ck`. One query per call.
   */
  findChildren(edge: StoreEdge, parents: readonly JsonObject[]): Promise<LinkedRecords[]>;
  /**
   * The records of `edge.parent` linked to each child (upward), aligned with `children`.
   * Exact: candidates are confirmed with the downward predicate. One query per call.
   */
  findParents(edge: StoreEdge, children: readonly JsonObject[]): Promise<LinkedRecords[]>;

  /** Every record of a node, in batches of at most `batchSize`. */
  scan(node: string, batchSize: number): AsyncIterable<StoredRecord[]>;
  count(node: string): Promise<number>;

  /** The JSON text last emitted per key (the next output's exact `before`). */
  getEmitted(head: string, cks: readonly string[]): Promise<Map<string, string>>;
  writeEmitted(head: string, writes: readonly EmittedWrite[]): Promise<void>;

  readonly counters: StoreCounters;
}
