/**
 * Collapses items with the same key within a time window into one (`merge`, default: the newer
 * wins). Each key has its own window: it opens with the key's first item and closes `windowMs`
 * later, so every item waits at most `windowMs` and items of one key inside it become one.
 * When the earliest window closes, every key whose window has closed is emitted in one batch,
 * in the order the windows opened. `windowMs: 0` deduplicates each batch alone.
 *
 * Acknowledgements of an input batch travel with the emitted batch holding the last of its keys,
 * so a batch is committed only after every key it touched was handled downstream.
 *
 * `maxInFlight` bounds the emitted batches not yet acknowledged downstream (see
 * `commitAcknowledged`); while at the bound, closed windows wait and merge into the next batch,
 * so a slow consumer gets fewer, larger batches instead of a growing queue.
 * Pending windows are emitted when the input completes; `onCompressed(in, out)` reports the item
 * counts of each emitted batch (the compression ratio).
 *
 * @example
 *   updates$.pipe(
 *     compressByKey({ windowMs: 200, keyOf: (update) => update.headKey, maxInFlight: 1 }),
 *     concatMap(async (batch) => { await recompute(batch.items); return batch; }),
 *     commitAcknowledged(consumer, { intervalMs: 1000 }),
 *   );
 */
import { Observable, type OperatorFunction } from 'rxjs';
import type { Acknowledgement, Batch } from './batch.ts';
import { type Clock, systemClock } from './clock.ts';

export interface CompressByKeyOptions<T> {
  readonly windowMs: number;
  readonly keyOf: (item: T) => string;
  readonly merge?: (older: T, newer: T) => T;
  readonly onCompressed?: (inCount: number, outCount: number) => void;
  /** Emitted batches awaiting acknowledgement before closed windows are held back; default unbounded. */
  readonly maxInFlight?: number;
  /**
   * Most items per emitted batch; default unbounded. Closed windows beyond it go in the next
   * batch, emitted on a later turn of the event loop, so one large batch of work cannot hold
   * back everything else the process does (and make the input bunch up behind it).
   */
  readonly maxBatchSize?: number;
  /** Time and timers of the windows; default the system's. */
  readonly clock?: Clock;
}

/** Timers fire on whole milliseconds: a window closing within one of now is due now. */
const TIMER_RESOLUTION_MS = 1;

interface Window<T> {
  item: T;
  readonly closesAt: number;
  /** Items merged into this one (the compression ratio's numerator). */
  count: number;
}

interface PendingAcks {
  /** When every key of the input batch has been emitted: its last window's close. */
  readonly releaseAt: number;
  readonly acks: readonly Acknowledgement[];
}

export function compressByKey<T>(options: CompressByKeyOptions<T>): OperatorFunction<Batch<T>, Batch<T>> {
  const { keyOf, merge, onCompressed } = options;
  const windowMs = Math.max(0, options.windowMs);
  const maxInFlight = options.maxInFlight ?? Number.POSITIVE_INFINITY;
  const maxBatchSize = options.maxBatchSize ?? Number.POSITIVE_INFINITY;
  const clock = options.clock ?? systemClock;
  return (source) =>
    new Observable<Batch<T>>((subscriber) => {
      // Windows open in time order, so a Map in insertion order is also ordered by close time.
      const windows = new Map<string, Window<T>>();
      const pendingAcks: PendingAcks[] = [];
      let lastRelease = 0;
      let inFlight = 0;
      let timer: unknown;
      let timerAt = 0;
      let closed = false;

      const nextDue = (): number => {
        const first = windows.values().next();
        const key = first.done ? Number.POSITIVE_INFINITY : first.value.closesAt;
        return Math.min(key, pendingAcks[0]?.releaseAt ?? Number.POSITIVE_INFINITY);
      };

      const emit = (until: number, limit: number) => {
        const items: T[] = [];
        let inCount = 0;
        for (const [key, window] of windows) {
          if (window.closesAt > until || items.length >= limit) break;
          windows.delete(key);
          items.push(window.item);
          inCount += window.count;
        }
        // An input batch is complete once no window up to its release is left; a closed window
        // cut off by the size limit holds back the batches released at or after its close.
        const left = windows.values().next();
        const cut = !left.done && left.value.closesAt <= until ? left.value.closesAt : null;
        const released = (p: PendingAcks) => (cut === null ? p.releaseAt <= until : p.releaseAt < cut);
        const acks: Acknowledgement[] = [];
        while (pendingAcks.length > 0 && released(pendingAcks[0] as PendingAcks)) {
          for (const ack of (pendingAcks.shift() as PendingAcks).acks) acks.push(ack);
        }
        if (items.length === 0 && acks.length === 0) return;
        onCompressed?.(inCount, items.length);
        subscriber.next({ items, acks: trackCompletion(acks) });
      };

      /** Wraps the acknowledgements so the first one called frees this batch's in-flight slot. */
      const trackCompletion = (acks: Acknowledgement[]): Acknowledgement[] => {
        if (acks.length === 0 || maxInFlight === Number.POSITIVE_INFINITY) return acks;
        inFlight++;
        let done = false;
        const complete = () => {
          if (done) return;
          done = true;
          inFlight--;
          // On a later turn: the work downstream just finished may have starved other work.
          setImmediate(schedule);
        };
        return acks.map((ack) => ({
          tracker: ack.tracker,
          ack: () => {
            ack.ack();
            complete();
          },
        }));
      };

      const schedule = () => {
        if (closed) return;
        const due = nextDue();
        if (due === Number.POSITIVE_INFINITY || inFlight >= maxInFlight) return;
        const now = clock.now() + TIMER_RESOLUTION_MS;
        if (due > now) return arm();
        clock.clearTimeout(timer);
        timer = undefined;
        emit(now, maxBatchSize);
        // More may be due (cut by the size limit): emit it on a later turn if there is room;
        // else it waits for capacity (an acknowledgement calls us again) or for its window.
        if (inFlight < maxInFlight && nextDue() <= clock.now() + TIMER_RESOLUTION_MS) setImmediate(schedule);
        else arm();
      };

      const arm = () => {
        const due = nextDue();
        if (due === Number.POSITIVE_INFINITY || inFlight >= maxInFlight) return;
        if (timer !== undefined && timerAt <= due) return;
        clock.clearTimeout(timer);
        timerAt = due;
        timer = clock.setTimeout(
          () => {
            timer = undefined;
            schedule();
          },
          Math.max(0, due - clock.now()),
        );
      };

      const subscription = source.subscribe({
        next(batch) {
          const now = clock.now();
          let releaseAt = Math.max(lastRelease, batch.items.length === 0 ? now : 0);
          for (const item of batch.items) {
            const key = keyOf(item);
            const window = windows.get(key);
            if (window) {
              window.item = merge ? merge(window.item, item) : item;
              window.count++;
              if (window.closesAt > releaseAt) releaseAt = window.closesAt;
            } else {
              windows.set(key, { item, closesAt: now + windowMs, count: 1 });
              releaseAt = Math.max(releaseAt, now + windowMs);
            }
          }
          lastRelease = releaseAt;
          if (batch.acks.length > 0) pendingAcks.push({ releaseAt, acks: batch.acks });
          schedule();
        },
        error(error: unknown) {
          closed = true;
          clock.clearTimeout(timer);
          subscriber.error(error);
        },
        complete() {
          closed = true;
          clock.clearTimeout(timer);
          emit(Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY);
          subscriber.complete();
        },
      });
      return () => {
        closed = true;
        clock.clearTimeout(timer);
        subscription.unsubscribe();
      };
    });
}
