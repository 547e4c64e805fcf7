/**
 * Groups items into arrays of at most `maxSize`, emitting a partial array `maxWaitMs` after its
 * first item arrived (so a trickle is not held back) and the rest when the input completes.
 *
 * @example
 *   writes$.pipe(microBatch({ maxSize: 1000, maxWaitMs: 20 })); // Observable<Write[]>
 */
import { Observable, type OperatorFunction } from 'rxjs';

export function microBatch<T>(options: {
  readonly maxSize: number;
  readonly maxWaitMs: number;
}): OperatorFunction<T, T[]> {
  return (source) =>
    new Observable<T[]>((subscriber) => {
      let pending: T[] = [];
      let timer: NodeJS.Timeout | undefined;

      const flush = () => {
        clearTimeout(timer);
        timer = undefined;
        if (pending.length === 0) return;
        const batch = pending;
        pending = [];
        subscriber.next(batch);
      };

      const subscription = source.subscribe({
        next(item) {
          pending.push(item);
          if (pending.length >= options.maxSize) flush();
          else timer ??= setTimeout(flush, options.maxWaitMs);
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
