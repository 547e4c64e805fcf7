/**
 * Produces every record of a batch and emits, once all delivery reports arrived, a batch of the
 * reports with the input's acknowledgements. A failed delivery (after the producer's own
 * retries) fails the stream. Up to `concurrency` batches (default 4) await their reports at once;
 * records are handed to the producer in arrival order, so per-partition order is kept.
 *
 * @example
 *   outputs$.pipe(produceRecords(producer), commitAcknowledged(consumer, { intervalMs: 1000 }));
 */
import { mergeMap, type OperatorFunction } from 'rxjs';
import type { Batch } from './batch.ts';
import type { BrokerProducer, DeliveryReport, ProducerRecord } from './broker/types.ts';

export function produceRecords(
  producer: BrokerProducer,
  options?: { readonly concurrency?: number },
): OperatorFunction<Batch<ProducerRecord>, Batch<DeliveryReport>> {
  return mergeMap(async (batch) => {
    try {
      const reports = await Promise.all(batch.items.map((record) => producer.produce(record)));
      return { items: reports, acks: batch.acks };
    } catch (error) {
      const topics = [...new Set(batch.items.map((r) => r.topic))].join(', ');
      throw new Error(
        `producing a batch of ${batch.items.length} record(s) to ${topics} failed: ${(error as Error).message}`,
        {
          cause: error,
        },
      );
    }
  }, options?.concurrency ?? 4);
}
