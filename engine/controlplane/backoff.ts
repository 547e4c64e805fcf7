export interface BackoffOptions {
  /** Cap of the first delay (ms). */
  readonly initialMs: number;
  /** Bound of every delay (ms). */
  readonly maxMs: number;
  readonly multiplier: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { initialMs: 500, maxMs: 30_000, multiplier: 2 };

/**
 * Exponential backoff with full jitter: uniform in [0, min(max, initial * multiplier^attempt)],
 * so engines that lost the same control plane do not all reconnect at the same instant.
 * `attempt` counts failures since the last established connection, from 0.
 */
export function backoffDelay(
  attempt: number,
  options: BackoffOptions,
  random: () => number = Math.random,
): number {
  const cap = Math.min(options.maxMs, options.initialMs * options.multiplier ** attempt);
  return Math.floor(random() * cap);
}
