import type { Clock } from '../../operators/clock.ts';

/**
 * A virtual clock: `advance` runs due timers in time order, letting promises settle in between,
 * so time-driven code is tested at exact instants instead of by waiting.
 *
 * @example
 *   const clock = new FakeClock();
 *   clock.setTimeout(() => fired.push(clock.now()), 30);
 *   await clock.advance(30); // fired: [clock.start + 30]
 */
export class FakeClock implements Clock {
  readonly start = 1_000_000;
  time = this.start;
  #timers = new Map<number, { at: number; callback: () => void }>();
  #next = 0;
  now = () => this.time;
  setTimeout = (callback: () => void, ms: number) => {
    const id = ++this.#next;
    this.#timers.set(id, { at: this.time + Math.max(0, ms), callback });
    return id;
  };
  clearTimeout = (handle: unknown) => {
    this.#timers.delete(handle as number);
  };
  get pending() {
    return this.#timers.size;
  }
  async advance(ms: number) {
    const end = this.time + ms;
    for (;;) {
      await settle();
      const due = [...this.#timers].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      this.#timers.delete(due[0]);
      this.time = due[1].at;
      due[1].callback();
    }
    this.time = end;
    await settle();
  }
}

/** Lets chains of resolved promises run (a timer's callback often continues in one). */
const settle = async () => {
  for (let i = 0; i < 20; i++) await Promise.resolve();
};
