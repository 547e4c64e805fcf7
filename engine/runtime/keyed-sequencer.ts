/**
 * Runs pieces of work side by side, except that work on a key starts only after all earlier work
 * on that key has finished: what per-key order needs, without holding back unrelated keys.
 *
 * @example
 *   const sequencer = new KeyedSequencer();
 *   await Promise.all([
 *     sequencer.run(['a', 'b'], () => recompute(['a', 'b'])),
 *     sequencer.run(['c'], () => recompute(['c'])), // at once
 *     sequencer.run(['b'], () => recompute(['b'])), // after the first
 *   ]);
 */
export class KeyedSequencer {
  /** Per key, the settling of the latest work on it. */
  readonly #latest = new Map<string, Promise<void>>();

  async run<T>(keys: Iterable<string>, work: () => Promise<T>): Promise<T> {
    const earlier = new Set<Promise<void>>();
    let finish!: () => void;
    const finished = new Promise<void>((resolve) => {
      finish = resolve;
    });
    const owned: string[] = [];
    for (const key of keys) {
      const previous = this.#latest.get(key);
      if (previous) earlier.add(previous);
      this.#latest.set(key, finished);
      owned.push(key);
    }
    try {
      if (earlier.size > 0) await Promise.all(earlier);
      return await work();
    } finally {
      finish();
      for (const key of owned) if (this.#latest.get(key) === finished) this.#latest.delete(key);
    }
  }

  /** Keys with work running or waiting (for tests: nothing is left behind). */
  get size(): number {
    return this.#latest.size;
  }
}
