/** The backing database cannot be reached (at startup, or after retries ran out). */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
}

/** A call names a node, head or edge the store was not configured with. */
export class UnknownStoreTargetError extends Error {
  override readonly name = 'UnknownStoreTargetError';
}
