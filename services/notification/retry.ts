import { setTimeout as sleep } from 'node:timers/promises';

/** An error a retry cannot fix (a 4xx answer, a recipient the server refuses). */
export class PermanentError extends Error {
  override readonly name = 'PermanentError';
}

/**
 * Runs `attempt` up to `retries + 1` times, waiting 100 ms, 200 ms, 400 ms, … between tries, as
 * long as it fails with anything but a {@link PermanentError}.
 */
export async function withRetries<T>(retries: number, attempt: () => Promise<T>): Promise<T> {
  for (let tried = 0; ; tried++) {
    try {
      return await attempt();
    } catch (error) {
      if (error instanceof PermanentError || tried >= retries) throw error;
      await sleep(100 * 2 ** tried);
    }
  }
}
