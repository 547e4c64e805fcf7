/**
 * The error of class `kind` that `run` throws; any other error is thrown on, and a `run` that
 * returns fails.
 *
 * @example
 *   const error = thrown(ConfigError, () => parseConfig('{'));
 */
export function thrown<E extends Error>(kind: new (...args: never[]) => E, run: () => unknown): E {
  try {
    run();
  } catch (error) {
    if (error instanceof kind) return error;
    throw error;
  }
  throw new Error(`expected a ${kind.name}, nothing was thrown`);
}
