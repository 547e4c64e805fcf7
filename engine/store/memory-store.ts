import type { JsonObject } from '../../operators/record/json.ts';
import type { CompiledEdge } from '../filter/index.ts';
import { HashIndex } from './hash-index.ts';
import { checkKnown, edgeLookup, type StoreLayout } from './layout.ts';
import { matchBatch } from './match.ts';
import type {
  EmittedWrite,
  LinkedRecords,
  RecordWrite,
  Store,
  StoreCounters,
  StoredRecord,
  StoreEdge,
} from './types.ts';

interface IndexedEdgeEnd {
  readonly index: HashIndex;
  /** The keys to look up for an anchor of the other end. */
  readonly anchorKeys: (anchor: JsonObject) => string[];
}

/**
 * The in-process store (embedded mode, tests, benchmarks). Edges with an equality get a hash
 * index on each end, so a lookup costs O(matches); other edges scan the other node.
 * Records are kept as given: callers must not mutate a value after writing it.
 */
export class MemoryStore implements Store {
  readonly counters: StoreCounters = { roundTrips: 0 };
  readonly #records = new Map<string, Map<string, StoredRecord>>();
  readonly #emitted = new Map<string, Map<string, string>>();
  readonly #heads: ReadonlySet<string>;
  /** Per node, the indexes to maintain on its writes. */
  readonly #indexesOf = new Map<string, HashIndex[]>();
  /** Per edge id: the index of the child end (downward) and of the parent end (upward). */
  readonly #edgeIndexes = new Map<string, { down: IndexedEdgeEnd; up: IndexedEdgeEnd }>();
  readonly #edge: (edge: StoreEdge) => CompiledEdge;

  constructor(layout: StoreLayout) {
    for (const node of layout.nodes) {
      this.#records.set(node, new Map());
      this.#indexesOf.set(node, []);
    }
    this.#heads = new Set(layout.heads);
    for (const head of layout.heads) this.#emitted.set(head, new Map());
    this.#edge = edgeLookup(layout);
    for (const edge of layout.edges) {
      const pair = edge.filter.equalities[0];
      if (!pair) continue;
      const down = { index: new HashIndex(pair.childKeys), anchorKeys: pair.parentKeys };
      const up = { index: new HashIndex(pair.parentKeys), anchorKeys: pair.childKeys };
      this.#nodeIndexes(edge.child).push(down.index);
      this.#nodeIndexes(edge.parent).push(up.index);
      this.#edgeIndexes.set(edge.id, { down, up });
    }
  }

  async open(): Promise<void> {}
  async close(): Promise<void> {}
  async ping(): Promise<void> {}

  async write(node: string, writes: readonly RecordWrite[]): Promise<void> {
    this.counters.roundTrips++;
    const records = this.#nodeRecords(node);
    const indexes = this.#nodeIndexes(node);
    for (const w of writes) {
      const old = records.get(w.ck);
      if (w.kind === 'delete') {
        if (old) for (const index of indexes) index.remove(old);
        records.delete(w.ck);
        continue;
      }
      const record = new MemoryRecord(w.ck, w.key, w.value);
      records.set(w.ck, record);
      for (const index of indexes) {
        if (old) index.replace(old, record);
        else index.add(record);
      }
    }
  }

  async get(node: string, cks: readonly string[]): Promise<Map<string, StoredRecord>> {
    this.counters.roundTrips++;
    return entriesAt(this.#nodeRecords(node), cks);
  }

  async findChildren(edge: StoreEdge, parents: readonly JsonObject[]): Promise<LinkedRecords[]> {
    return this.#find(edge, 'down', parents);
  }

  async findParents(edge: StoreEdge, children: readonly JsonObject[]): Promise<LinkedRecords[]> {
    return this.#find(edge, 'up', children);
  }

  #find(edge: StoreEdge, direction: 'down' | 'up', anchors: readonly JsonObject[]): LinkedRecords[] {
    this.counters.roundTrips++;
    const compiled = this.#edge(edge);
    const other = this.#nodeRecords(direction === 'down' ? compiled.child : compiled.parent);
    const indexed = this.#edgeIndexes.get(compiled.id)?.[direction];
    if (!indexed) return matchBatch(compiled.filter, direction, anchors, [...other.values()]);
    const links =
      direction === 'down'
        ? (anchor: JsonObject, r: StoredRecord) => compiled.filter.links(anchor, r.value)
        : (anchor: JsonObject, r: StoredRecord) => compiled.filter.links(r.value, anchor);
    return anchors.map((anchor) => {
      // Candidates come in ck order; filtering keeps it, and usually every candidate links.
      const candidates = indexed.index.lookup(indexed.anchorKeys(anchor));
      return compiled.filter.exact ? candidates : confirmed(candidates, (record) => links(anchor, record));
    });
  }

  async *scan(node: string, batchSize: number): AsyncIterable<StoredRecord[]> {
    const records = this.#nodeRecords(node);
    let batch: StoredRecord[] = [];
    for (const record of records.values()) {
      batch.push(record);
      if (batch.length >= batchSize) {
        this.counters.roundTrips++;
        yield batch;
        batch = [];
      }
    }
    if (batch.length > 0) {
      this.counters.roundTrips++;
      yield batch;
    }
  }

  async count(node: string): Promise<number> {
    this.counters.roundTrips++;
    return this.#nodeRecords(node).size;
  }

  async getEmitted(head: string, cks: readonly string[]): Promise<Map<string, string>> {
    this.counters.roundTrips++;
    return entriesAt(this.#headEmitted(head), cks);
  }

  async writeEmitted(head: string, writes: readonly EmittedWrite[]): Promise<void> {
    this.counters.roundTrips++;
    const emitted = this.#headEmitted(head);
    for (const w of writes) {
      if (w.json === null) emitted.delete(w.ck);
      else emitted.set(w.ck, w.json);
    }
  }

  #nodeRecords(node: string): Map<string, StoredRecord> {
    checkKnown('node', node, this.#records);
    return this.#records.get(node)!;
  }

  #nodeIndexes(node: string): HashIndex[] {
    checkKnown('node', node, this.#indexesOf);
    return this.#indexesOf.get(node)!;
  }

  #headEmitted(head: string): Map<string, string> {
    checkKnown('head', head, this.#heads);
    return this.#emitted.get(head)!;
  }
}

/** The entries of `map` under those of `keys` it has, in the order of `keys`. */
function entriesAt<V>(map: ReadonlyMap<string, V>, keys: readonly string[]): Map<string, V> {
  const found = new Map<string, V>();
  for (const key of keys) {
    const value = map.get(key);
    if (value !== undefined) found.set(key, value);
  }
  return found;
}

/** The candidates that pass `test`, in order; the same array when all do (the usual case). */
function confirmed(candidates: LinkedRecords, test: (record: StoredRecord) => boolean): LinkedRecords {
  for (let i = 0; i < candidates.length; i++) {
    if (test(candidates[i] as StoredRecord)) continue;
    const kept = candidates.slice(0, i);
    for (let j = i + 1; j < candidates.length; j++) {
      if (test(candidates[j] as StoredRecord)) kept.push(candidates[j] as StoredRecord);
    }
    return kept;
  }
  return candidates;
}

/** A record held in memory: its value's JSON is computed on first use and kept (values are immutable). */
class MemoryRecord implements StoredRecord {
  #valueJson: string | undefined;

  constructor(
    readonly ck: string,
    readonly key: JsonObject,
    readonly value: JsonObject,
  ) {}

  get valueJson(): string {
    this.#valueJson ??= JSON.stringify(this.value);
    return this.#valueJson;
  }
}
