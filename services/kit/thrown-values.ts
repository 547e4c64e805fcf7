/** A thrown value that is not an `Error` (a string, an object...), kept as `cause`. */
export class ThrownValueError extends Error {
  constructor(readonly value: unknown) {
    super(describeThrown(value), { cause: value });
    this.name = 'ThrownValueError';
  }
}

/** A string as is, an error-like object's `message`, anything else as JSON (or `String()`). */
function describeThrown(value: unknown): string {
  if (typeof value === 'string') return value;
  const message = (value as { message?: unknown } | null)?.message;
  if (typeof message === 'string') return message;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value); // a BigInt or a circular object
  }
}
