/** A Secret that cannot be resolved. The message names the config path, never the value. */
export class SecretError extends Error {
  override readonly name = 'SecretError';

  constructor(
    /** Config path of the Secret, e.g. `processor.persistence.config.url`. */
    readonly path: string,
    /** What went wrong, e.g. `environment variable MONGODB_URL is not set`. */
    readonly reason: string,
  ) {
    super(`${path}: ${reason}`);
  }
}
