/** Reusable RxJS operators for building pipelines on a `Broker` (Kafka or in-process). */
export { type Acknowledgement, acknowledge, type Batch, mapBatch, mergeBatches, withItems } from './batch.ts';
export { type Clock, systemClock } from './clock.ts';
export { commitAcknowledged } from './commit-acknowledged.ts';
export { type CompressByKeyOptions, compressByKey } from './compress-by-key.ts';
export { type ConsumeBatchesOptions, type ConsumeObserver, consumeBatches } from './consume-batches.ts';
export { microBatch } from './micro-batch.ts';
export { OffsetTracker } from './offset-tracker.ts';
export { produceRecords } from './produce-records.ts';
