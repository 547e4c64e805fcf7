import type { Clock } from '../../operators/clock.ts';

export interface FeedbackSchedulerOptions {
  readonly intervalMs: number;
  readonly clock: Clock;
  /** Builds and writes one event; resolves with the time it stamped on it, or null if nothing was written. */
  readonly send: () => Promise<number | null>;
  readonly onError: (error: unknown) => void;
}

/**
 * Paces feedback events: one at a time, each at least `intervalMs` after the previous one
 * written, also across streams (a reconnection does not send early). Runs between `start()`
 * (a stream is open) and `stop()`.
 */
export class FeedbackScheduler {
  readonly #options: FeedbackSchedulerOptions;
  #lastSentAt: number | null = null;
  /** After a failed attempt: not before this time, so a failing snapshot does not spin. */
  #retryAt: number | null = null;
  #running = false;
  #sending = false;
  #timer: unknown = null;

  constructor(options: FeedbackSchedulerOptions) {
    this.#options = options;
  }

  start(): void {
    this.#running = true;
    this.#schedule();
  }

  stop(): void {
    this.#running = false;
    if (this.#timer !== null) this.#options.clock.clearTimeout(this.#timer);
    this.#timer = null;
  }

  #schedule(): void {
    if (!this.#running || this.#sending || this.#timer !== null) return;
    const { clock, intervalMs } = this.#options;
    const due = Math.max(this.#lastSentAt === null ? 0 : this.#lastSentAt + intervalMs, this.#retryAt ?? 0);
    this.#timer = clock.setTimeout(() => void this.#fire(), Math.max(0, due - clock.now()));
  }

  async #fire(): Promise<void> {
    this.#timer = null;
    if (!this.#running) return;
    const { clock, intervalMs } = this.#options;
    // Timers may fire a little early; never send before the interval has passed.
    if (this.#lastSentAt !== null && clock.now() - this.#lastSentAt < intervalMs) return this.#schedule();
    this.#sending = true;
    try {
      const sentAt = await this.#options.send();
      if (sentAt !== null) this.#lastSentAt = sentAt;
      this.#retryAt = null;
    } catch (error) {
      this.#retryAt = clock.now() + intervalMs;
      this.#options.onError(error);
    } finally {
      this.#sending = false;
      this.#schedule();
    }
  }
}
