import { MongoError, MongoNetworkError, MongoServerSelectionError } from 'mongodb';
import { type RetryPolicy, withRetry as retry } from '../../retry/index.ts';

export type { RetryPolicy };

export const DEFAULT_RETRY: RetryPolicy = { attempts: 5, baseDelayMs: 100, maxDelayMs: 2000 };

// Server codes of a primary stepping down, shutting down or a host vanishing: worth a retry.
const TRANSIENT_CODES = new Set([6, 7, 89, 91, 189, 262, 9001, 10107, 11600, 11602, 13435, 13436]);

export function isTransient(err: unknown): boolean {
  if (err instanceof MongoNetworkError || err instanceof MongoServerSelectionError) return true;
  if (!(err instanceof MongoError)) return false;
  if (err.hasErrorLabel('RetryableWriteError') || err.hasErrorLabel('TransientTransactionError')) return true;
  return typeof err.code === 'number' && TRANSIENT_CODES.has(err.code);
}

/** Runs a store operation, retrying transient MongoDB failures (every one is idempotent: by `__pk`). */
export function withRetry<T>(operation: () => Promise<T>, policy: RetryPolicy = DEFAULT_RETRY): Promise<T> {
  return retry(operation, { ...policy, retryable: isTransient });
}
