import type { Clock } from '../../operators/clock.ts';

/**
 * Runs a callback once the clock reaches an absolute due time, never before and never lost.
 * Node timers can fire a millisecond before `Date.now()` reaches their due time (often, on a
 * busy loop): a timer that fires early is armed again for the rest instead of being dropped.
 */
export class DueTimer {
  readonly #clock: Clock;
  #handle: unknown = null;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  get armed(): boolean {
    return this.#handle !== null;
  }

  /** Runs `callback` once `clock.now() >= dueAt`; replaces what was armed. */
  arm(dueAt: number, callback: () => void): void {
    this.cancel();
    this.#wait(dueAt, callback);
  }

  cancel(): void {
    if (this.#handle !== null) this.#clock.clearTimeout(this.#handle);
    this.#handle = null;
  }

  #wait(dueAt: number, callback: () => void): void {
    this.#handle = this.#clock.setTimeout(
      () => {
        if (this.#clock.now() < dueAt) return this.#wait(dueAt, callback);
        this.#handle = null;
        callback();
      },
      Math.max(0, dueAt - this.#clock.now()),
    );
  }
}
