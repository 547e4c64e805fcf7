import { MongoError, MongoNetworkError, MongoServerSelectionError } from 'mongodb';

export interface RetryPolicy {
  /** Attempts in all, the first included. */
  readonly attempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 5, baseDelayMs: 100, maxDelayMs: 2000 };

// Server codes of a primary stepping down, shutting down or a host vanishing: worth a retry.
const TRANSIENT_CODES = new Set([6, 7, 89, 91, 189, 262, 9001, 10107, 11600, 11602, 13435, 13436]);

export function isTransient(err: unknown): boolean {
  if (err instanceof MongoNetworkError || err instanceof MongoServerSelectionError) return true;
  if (!(err instanceof MongoError)) return false;
  if (err.hasErrorLabel('RetryableWriteError') || err.hasErrorLabel('TransientTransactionError')) return true;
  return typeof err.code === 'number' && TRANSIENT_CODES.has(err.code);
}

/**
 * Runs `operation`, retrying transient failures with exponential backoff (with jitter) up to
 * the policy's bound. Every operation the store retries is idempotent (writes by `__pk`).
 */
export async function withRetry<T>(
  operation: () => Promise<T>,
  policy: RetryPolicy = DEFAULT_RETRY,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await operation();
    } catch (err) {
      if (attempt >= policy.attempts || !isTransient(err)) throw err;
      const delay = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
      await new Promise((resolve) => setTimeout(resolve, delay * (0.5 + Math.random() / 2)));
    }
  }
}
