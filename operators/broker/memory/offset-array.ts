/**
 * An append-only sequence addressed by absolute offset whose oldest items can be dropped: a
 * partition's messages under 'committed' retention. Offsets never change: `base` is the offset
 * of the first item kept, `end` the offset the next append gets.
 *
 * Dropping is amortised O(1): dropped items stay in the array as a dead prefix until it is at
 * least half of it, then one copy of the live part (no longer than that prefix) removes them.
 * So at most half the array is dead, and each dropped item is paid for once.
 */
export class OffsetArray<T> {
  #items: T[] = [];
  /** Items at the front of `#items` already dropped, removed in bulk. */
  #dead = 0;
  #base = 0;

  /** Offset of the first item kept. */
  get base(): number {
    return this.#base;
  }

  /** Offset of the next item appended (Kafka's high watermark). */
  get end(): number {
    return this.#base + this.#items.length - this.#dead;
  }

  push(item: T): void {
    this.#items.push(item);
  }

  /** Appends the items of offsets [from, to) to `into`; the caller keeps within [base, end). */
  copyInto(from: number, to: number, into: T[]): void {
    const shift = this.#dead - this.#base;
    for (let offset = from; offset < to; offset++) into.push(this.#items[offset + shift]!);
  }

  /** The items kept, as a new array (index 0 is offset `base`). */
  toArray(): T[] {
    return this.#items.slice(this.#dead);
  }

  /** Drops the items below `offset` (never past `end`). */
  dropBelow(offset: number): void {
    const to = Math.min(offset, this.end);
    if (to <= this.#base) return;
    this.#dead += to - this.#base;
    this.#base = to;
    if (this.#dead * 2 < this.#items.length) return;
    this.#items = this.#dead === this.#items.length ? [] : this.#items.slice(this.#dead);
    this.#dead = 0;
  }
}
