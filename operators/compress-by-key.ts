/**
 * Collapses items with the same key within a time window into one (`merge`, default: the newer
 * wins), keeping the order in which keys first appeared. The output batch carries the
 * acknowledgements of every input batch it covers. `windowMs: 0` deduplicates each batch alone.
 * A pending window is emitted when the input completes; `onCompressed(in, out)` reports the
 * item counts of each emitted batch (the compression ratio).
 *
 * @example
 *   updates$.pipe(
 *     compressByKey({ windowMs: 200, keyOf: (update) => update.headKey }),
 *   );
 */
import { Observable, type OperatorFunction } from 'rxjs';
import type { Acknowledgement, Batch } from './batch.ts';

export interface CompressByKeyOptions<T> {
  readonly windowMs: number;
  readonly keyOf: (item: T) => string;
  readonly merge?: (older: T, newer: T) => T;
  readonly onCompressed?: (inCount: number, outCount: number) => void;
}

export function compressByKey<T>(options: CompressByKeyOptions<T>): OperatorFunction<Batch<T>, Batch<T>> {
  const { keyOf, merge, onCompressed } = options;
  return (source) =>
    new Observable<Batch<T>>((subscriber) => {
      let window = new Map<string, T>();
      let acks: Acknowledgement[] = [];
      let inCount = 0;
      let timer: NodeJS.Timeout | undefined;

      const flush = () => {
        clearTimeout(timer);
        timer = undefined;
        if (acks.length === 0 && window.size === 0) return;
        const batch: Batch<T> = { items: [...window.values()], acks };
        onCompressed?.(inCount, batch.items.length);
        window = new Map();
        acks = [];
        inCount = 0;
        subscriber.next(batch);
      };

      const subscription = source.subscribe({
        next(batch) {
          for (const item of batch.items) {
            const key = keyOf(item);
            const older = window.get(key);
            window.set(key, older !== undefined && merge ? merge(older, item) : item);
          }
          inCount += batch.items.length;
          for (const ack of batch.acks) acks.push(ack);
          if (options.windowMs <= 0) flush();
          else timer ??= setTimeout(flush, options.windowMs);
        },
        error(error: unknown) {
          clearTimeout(timer);
          subscriber.error(error);
        },
        complete() {
          flush();
          subscriber.complete();
        },
      });
      return () => {
        clearTimeout(timer);
        subscription.unsubscribe();
      };
    });
}
