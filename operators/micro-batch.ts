/**
 * Groups items into arrays of at most `maxSize`, emitting a partial array `maxWaitMs` after its
 * first item arrived (so a trickle is not held back) and the rest when the input completes.
 *
 * @example
 *   writes$.pipe(microBatch({ maxSize: 1000, maxWaitMs: 20 })); // Observable<Write[]>
 */
import { Observable, type OperatorFunction } from 'rxjs';
import { type Clock, systemClock } from './clock.ts';

export function microBatch<T>(options: {
  readonly maxSize: number;
  readonly maxWaitMs: number;
  /** Times the wait; the system's by default. */
  readonly clock?: Clock;
}): OperatorFunction<T, T[]> {
  const clock = options.clock ?? systemClock;
  return (source) =>
    new Observable<T[]>((subscriber) => {
      let pending: T[] = [];
      let timer: unknown;

      const flush = () => {
        clock.clearTimeout(timer);
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
          else timer ??= clock.setTimeout(flush, options.maxWaitMs);
        },
        error(error: unknown) {
          clock.clearTimeout(timer);
          subscriber.error(error);
        },
        complete() {
          flush();
          subscriber.complete();
        },
      });
      return () => {
        clock.clearTimeout(timer);
        subscription.unsubscribe();
      };
    });
}
