/**
 * The end of a pipeline: a batch reaching this operator is acknowledged, and the consumer commits
 * per partition the highest offset before which every emitted batch is acknowledged — correct
 * with out-of-order and merged acknowledgements. Commits happen at most every `intervalMs`
 * (0: after every batch; timed on `clock`, the system's by default), and once more when the
 * stream completes, before completing downstream.
 * Batches pass through unchanged; a failed commit fails the stream.
 *
 * @example
 *   consumeBatches(consumer, { topics: ['in'], maxBatchSize: 500, maxInFlight: 4 }).pipe(
 *     mergeMap(async (batch) => { await store.write(batch.items); return batch; }),
 *     commitAcknowledged(consumer, { intervalMs: 1000 }),
 *   ).subscribe();
 */
import { Observable, type OperatorFunction } from 'rxjs';
import { acknowledge, type Batch } from './batch.ts';
import type { BrokerConsumer } from './broker/types.ts';
import { type Clock, systemClock } from './clock.ts';
import type { OffsetTracker } from './offset-tracker.ts';

export function commitAcknowledged<T>(
  consumer: BrokerConsumer,
  options: { readonly intervalMs: number; readonly clock?: Clock },
): OperatorFunction<Batch<T>, Batch<T>> {
  const clock = options.clock ?? systemClock;
  return (source) =>
    new Observable<Batch<T>>((subscriber) => {
      const trackers = new Set<OffsetTracker>();
      let timer: unknown;
      let lastCommitAt = 0;
      let committing: Promise<void> = Promise.resolve();

      const commit = (): Promise<void> => {
        clock.clearTimeout(timer);
        timer = undefined;
        lastCommitAt = clock.now();
        // One commit at a time, each reading the tracker when it starts: offsets only grow.
        committing = committing.then(async () => {
          for (const tracker of trackers) {
            const offsets = tracker.committable();
            if (offsets.length === 0) continue;
            await consumer.commit(offsets);
            tracker.markCommitted(offsets);
          }
        });
        return committing;
      };
      const commitOrFail = () => commit().catch((error: unknown) => subscriber.error(error));

      const subscription = source.subscribe({
        next(batch) {
          acknowledge(batch);
          for (const ack of batch.acks) trackers.add(ack.tracker);
          const wait = lastCommitAt + options.intervalMs - clock.now();
          if (options.intervalMs <= 0 || wait <= 0) void commitOrFail();
          else timer ??= clock.setTimeout(commitOrFail, wait);
          subscriber.next(batch);
        },
        error(error: unknown) {
          // What was acknowledged stays committable: commit it, then report the failure.
          commit().then(
            () => subscriber.error(error),
            () => subscriber.error(error),
          );
        },
        complete() {
          commit().then(
            () => subscriber.complete(),
            (error: unknown) => subscriber.error(error),
          );
        },
      });
      return () => {
        clock.clearTimeout(timer);
        subscription.unsubscribe();
      };
    });
}
