import { setTimeout as sleep } from 'node:timers/promises';

export interface RetryPolicy {
  /** Attempts in all, the first included. */
  readonly attempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

export interface RetryOptions extends RetryPolicy {
  /** Whether a failure is worth another attempt (default: every failure). */
  readonly retryable?: (error: unknown) => boolean;
  /** Called before each new attempt, e.g. to log it. */
  readonly onRetry?: (error: unknown, attempt: number, delayMs: number) => void;
}

/**
 * Runs `operation` until it succeeds, retrying retryable failures with exponential backoff and
 * jitter (half to full delay) up to `attempts`; then the last failure is thrown. Only for
 * operations that are safe to repeat.
 *
 * @example
 * await withRetry(() => store.write(node, writes), { attempts: 5, baseDelayMs: 100, maxDelayMs: 2000 });
 */
export async function withRetry<T>(operation: () => Promise<T>, options: RetryOptions): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await operation();
    } catch (error) {
      if (attempt >= options.attempts || !(options.retryable?.(error) ?? true)) throw error;
      const delay =
        Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** (attempt - 1)) * (0.5 + Math.random() / 2);
      options.onRetry?.(error, attempt, delay);
      await sleep(delay);
    }
  }
}
