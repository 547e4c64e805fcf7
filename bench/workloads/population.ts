import { type Random, randomInt } from './random.ts';

/**
 * The live records of one node, kept in typed arrays so a million-event stream costs a few
 * megabytes: ids are dense (0, 1, 2...), each record has its foreign keys and a version.
 */
export class Population {
  #live: Int32Array = new Int32Array(1024);
  #slot: Int32Array = new Int32Array(1024).fill(-1);
  #version: Uint32Array = new Uint32Array(1024);
  readonly #foreign: Int32Array[];
  #size = 0;
  #nextId = 0;

  constructor(foreignKeys: number) {
    this.#foreign = Array.from({ length: foreignKeys }, () => new Int32Array(1024).fill(-1));
  }

  get size(): number {
    return this.#size;
  }

  /** A new record's id, live from now on. */
  create(foreign: readonly number[]): number {
    const id = this.#nextId++;
    this.#grow(id + 1);
    this.#slot[id] = this.#size;
    this.#live[this.#size++] = id;
    for (const [i, parent] of foreign.entries()) this.#setForeign(i, id, parent);
    return id;
  }

  isLive(id: number): boolean {
    return id >= 0 && id < this.#nextId && (this.#slot[id] ?? -1) >= 0;
  }

  /** A uniformly chosen live id, or -1 when the node is empty. */
  pick(random: Random): number {
    return this.#size === 0 ? -1 : (this.#live[randomInt(random, this.#size)] as number);
  }

  foreign(index: number, id: number): number {
    return this.#foreign[index]?.[id] ?? -1;
  }

  /** Bumps the version (an update) and optionally moves the record to other parents. */
  update(id: number, foreign?: readonly number[]): number {
    for (const [i, parent] of foreign?.entries() ?? []) this.#setForeign(i, id, parent);
    this.#version[id] = (this.#version[id] ?? 0) + 1;
    return this.#version[id] as number;
  }

  version(id: number): number {
    return this.#version[id] ?? 0;
  }

  delete(id: number): void {
    const slot = this.#slot[id] ?? -1;
    if (slot < 0) return;
    const last = this.#live[--this.#size] as number;
    this.#live[slot] = last;
    this.#slot[last] = slot;
    this.#slot[id] = -1;
  }

  #setForeign(index: number, id: number, parent: number): void {
    const column = this.#foreign[index];
    if (column) column[id] = parent;
  }

  #grow(needed: number): void {
    if (needed <= this.#slot.length) return;
    const length = Math.max(needed, this.#slot.length * 2);
    const grownInt = (from: Int32Array, fill: number) => {
      const to = new Int32Array(length).fill(fill);
      to.set(from);
      return to;
    };
    this.#live = grownInt(this.#live, 0);
    this.#slot = grownInt(this.#slot, -1);
    const version = new Uint32Array(length);
    version.set(this.#version);
    this.#version = version;
    this.#foreign.forEach((column, i) => {
      this.#foreign[i] = grownInt(column, -1);
    });
  }
}
