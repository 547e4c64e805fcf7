import type { Clock } from '../../operators/clock.ts';

/**
 * A virtual clock: `advance` runs due timers in time order, letting promises settle in between,
 * so time-driven code is tested at exact instants instead of by waiting.
 *
 * `firesEarlyMs` makes it behave like Node under load, whose timers can fire a millisecond
 * before `Date.now()` reaches their due time: a timer of more than `firesEarlyMs` runs that much
 * early (shorter ones on time, so re-arming for the rest always makes progress).
 *
 * @example
 *   const clock = new FakeClock();
 *   clock.setTimeout(() => fired.push(clock.now()), 30);
 *   await clock.advance(30); // fired: [clock.start + 30]
 */
export class FakeClock implements Clock {
  readonly start = 1_000_000;
  time = this.start;
  readonly #firesEarlyMs: number;
  #timers = new Map<number, { at: number; callback: () => void }>();
  #next = 0;

  constructor(options: { firesEarlyMs?: number } = {}) {
    this.#firesEarlyMs = options.firesEarlyMs ?? 0;
  }

  now = () => this.time;
  setTimeout = (callback: () => void, ms: number) => {
    const id = ++this.#next;
    const delay = ms > this.#firesEarlyMs ? ms - this.#firesEarlyMs : Math.max(0, ms);
    this.#timers.set(id, { at: this.time + delay, callback });
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
