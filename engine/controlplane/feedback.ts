import type { Clock } from '../../operators/clock.ts';
import { DueTimer } from './due-timer.ts';

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
  readonly #timer: DueTimer;

  constructor(options: FeedbackSchedulerOptions) {
    this.#options = options;
    this.#timer = new DueTimer(options.clock);
  }

  start(): void {
    this.#running = true;
    this.#schedule();
  }

  stop(): void {
    this.#running = false;
    this.#timer.cancel();
  }

  #schedule(): void {
    if (!this.#running || this.#sending || this.#timer.armed) return;
    const { intervalMs } = this.#options;
    const due = Math.max(this.#lastSentAt === null ? 0 : this.#lastSentAt + intervalMs, this.#retryAt ?? 0);
    this.#timer.arm(due, () => void this.#fire());
  }

  async #fire(): Promise<void> {
    const { clock, intervalMs } = this.#options;
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
