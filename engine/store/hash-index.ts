import type { JsonObject } from '../../operators/record/json.ts';
import { compareCanonical } from '../record/key.ts';
import { sortByCk } from './match.ts';
import type { StoredRecord } from './types.ts';

/**
 * Several records under one key; `sorted` is rebuilt on the first lookup after a record went. A
 * record that comes is put in its place in the order, a new version takes its predecessor's:
 * an order handed out is never changed (a recompute may hold it), so each is a copy.
 */
class Bucket {
  readonly byCk = new Map<string, StoredRecord>();
  sorted: StoredRecord[] | undefined;

  ordered(): readonly StoredRecord[] {
    this.sorted ??= sortByCk([...this.byCk.values()]);
    return this.sorted;
  }

  /** A record it does not hold yet. */
  insert(record: StoredRecord): void {
    this.byCk.set(record.ck, record);
    if (this.sorted === undefined) return;
    // Binary search for the first record ordered after it: O(log n) comparisons, not a re-sort.
    let low = 0;
    let high = this.sorted.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (compareCanonical((this.sorted[middle] as StoredRecord).ck, record.ck) < 0) low = middle + 1;
      else high = middle;
    }
    this.sorted = this.sorted.toSpliced(low, 0, record);
  }

  /** A new version of a record it holds: same ck, same place in the order, so no re-sort. */
  replace(previous: StoredRecord, next: StoredRecord): void {
    this.byCk.set(next.ck, next);
    if (this.sorted === undefined) return;
    const at = this.sorted.indexOf(previous);
    if (at < 0) {
      this.sorted = undefined;
      return;
    }
    this.sorted = this.sorted.slice();
    this.sorted[at] = next;
  }
}

/**
 * Records by equality key, kept current on every write (multikey: one record may sit under
 * several keys, e.g. each element of an array). Lookups answer in `compareCanonical` order of
 * ck, as the store contract requires, sorting a key's records once per change rather than once
 * per lookup: a parent's children are looked up far more often than they change. A key holding
 * one record stores the record itself, which keeps a million-record index small.
 */
export class HashIndex {
  readonly #keysOf: (value: JsonObject) => string[];
  readonly #entries = new Map<string, StoredRecord | Bucket>();

  constructor(keysOf: (value: JsonObject) => string[]) {
    this.#keysOf = keysOf;
  }

  add(record: StoredRecord): void {
    this.#add(record, this.#keysOf(record.value));
  }

  remove(record: StoredRecord): void {
    this.#remove(record, this.#keysOf(record.value));
  }

  /**
   * Files `next` instead of `previous`, a version of the same record (same ck). When both versions
   * file under the same keys (a change that keeps its links, the usual one) each key's order is
   * unchanged, so nothing is re-sorted on the next lookup.
   */
  replace(previous: StoredRecord, next: StoredRecord): void {
    const keys = this.#keysOf(next.value);
    const previousKeys = this.#keysOf(previous.value);
    if (!sameKeys(previousKeys, keys)) {
      this.#remove(previous, previousKeys);
      this.#add(next, keys);
      return;
    }
    for (const key of keys) {
      const entry = this.#entries.get(key);
      if (entry instanceof Bucket) entry.replace(previous, next);
      else this.#addUnder(key, next);
    }
  }

  #add(record: StoredRecord, keys: readonly string[]): void {
    for (const key of keys) this.#addUnder(key, record);
  }

  #addUnder(key: string, record: StoredRecord): void {
    const entry = this.#entries.get(key);
    if (entry === undefined || (!(entry instanceof Bucket) && entry.ck === record.ck)) {
      this.#entries.set(key, record);
    } else if (entry instanceof Bucket) {
      if (entry.byCk.has(record.ck)) entry.replace(entry.byCk.get(record.ck) as StoredRecord, record);
      else entry.insert(record);
    } else {
      const bucket = new Bucket();
      bucket.byCk.set(entry.ck, entry);
      bucket.byCk.set(record.ck, record);
      this.#entries.set(key, bucket);
    }
  }

  #remove(record: StoredRecord, keys: readonly string[]): void {
    for (const key of keys) {
      const entry = this.#entries.get(key);
      if (entry === undefined) continue;
      if (!(entry instanceof Bucket)) {
        if (entry.ck === record.ck) this.#entries.delete(key);
        continue;
      }
      entry.byCk.delete(record.ck);
      entry.sorted = undefined;
      if (entry.byCk.size === 1) this.#entries.set(key, entry.byCk.values().next().value as StoredRecord);
    }
  }

  /** The records filed under any of these keys, each once, ordered by ck. Do not mutate. */
  lookup(keys: readonly string[]): readonly StoredRecord[] {
    if (keys.length === 1) return this.#records(keys[0] as string);
    const found = new Map<string, StoredRecord>();
    for (const key of keys) for (const record of this.#records(key)) found.set(record.ck, record);
    return found.size <= 1 ? [...found.values()] : sortByCk([...found.values()]);
  }

  #records(key: string): readonly StoredRecord[] {
    const entry = this.#entries.get(key);
    if (entry === undefined) return [];
    return entry instanceof Bucket ? entry.ordered() : [entry];
  }
}

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
