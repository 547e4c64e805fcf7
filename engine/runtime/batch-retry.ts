import type { Logger } from 'pino';
import { type RetryPolicy, withRetry } from '../retry/index.ts';

/**
 * How often a batch's work is attempted before the engine stops (crash-only, offsets not
 * committed). Store writes are upserts and recomputes are pure, so repeating a batch is safe; a
 * repeat can only emit an output again (at least once).
 */
export const BATCH_RETRY: RetryPolicy = { attempts: 6, baseDelayMs: 250, maxDelayMs: 5_000 };

export function retryBatch<T>(logger: Logger, pipeline: string, work: () => Promise<T>): Promise<T> {
  return withRetry(work, {
    ...BATCH_RETRY,
    onRetry: (error, attempt, delayMs) =>
      logger.warn(
        { err: error, pipeline, attempt, delayMs: Math.round(delayMs) },
        `batch failed, retrying (${attempt}/${BATCH_RETRY.attempts - 1})`,
      ),
  });
}
