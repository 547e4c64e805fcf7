export { StoreUnavailableError, UnknownStoreTargetError } from './errors.ts';
export type { StoreLayout } from './layout.ts';
export { MemoryStore } from './memory-store.ts';
export { MongoStore, type MongoStoreOptions } from './mongo/mongo-store.ts';
export { emittedCollection, sinkCollection } from './mongo/names.ts';
export { DEFAULT_RETRY, type RetryPolicy } from './mongo/retry.ts';
export type * from './types.ts';
