import type { JsonObject } from '../record/json.ts';

/**
 * Record cks by equality key, kept current on every write (multikey: one record may sit under
 * several keys, e.g. each element of an array). A key holding one record stores the ck string
 * itself, which keeps a million-record index small.
 */
export class HashIndex {
  readonly #keysOf: (value: JsonObject) => string[];
  readonly #entries = new Map<string, string | Set<string>>();

  constructor(keysOf: (value: JsonObject) => string[]) {
    this.#keysOf = keysOf;
  }

  add(ck: string, value: JsonObject): void {
    for (const key of this.#keysOf(value)) {
      const entry = this.#entries.get(key);
      if (entry === undefined) this.#entries.set(key, ck);
      else if (typeof entry === 'string') {
        if (entry !== ck) this.#entries.set(key, new Set([entry, ck]));
      } else entry.add(ck);
    }
  }

  remove(ck: string, value: JsonObject): void {
    for (const key of this.#keysOf(value)) {
      const entry = this.#entries.get(key);
      if (entry === ck) this.#entries.delete(key);
      else if (typeof entry === 'object') {
        entry.delete(ck);
        if (entry.size === 1) this.#entries.set(key, entry.values().next().value as string);
      }
    }
  }

  /** The cks filed under any of these keys, each once. */
  lookup(keys: readonly string[]): Set<string> {
    const found = new Set<string>();
    for (const key of keys) {
      const entry = this.#entries.get(key);
      if (typeof entry === 'string') found.add(entry);
      else if (entry) for (const ck of entry) found.add(ck);
    }
    return found;
  }
}
