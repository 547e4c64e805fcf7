/**
 * The source of a pipeline: subscribes `consumer` to `topics` and emits batches of at most
 * `maxBatchSize` messages, each carrying the acknowledgement `commitAcknowledged` commits from.
 *
 * Backpressure: while `maxInFlight` batches are unacknowledged, or while `paused` says so, the
 * assigned partitions are paused and polling continues (so the consumer stays in its group);
 * messages already fetched wait in order, nothing is dropped or read twice.
 * Rebalances are reported to `events`; before a revocation completes, the source waits (up to
 * `revokeTimeoutMs`) for the revoked partitions' batches to be acknowledged and commits them.
 * Unsubscribing stops polling at once; `drain` emitting stops reading and completes the stream,
 * so downstream operators finish their in-flight batches and `commitAcknowledged` commits them.
 *
 * @example
 *   const events = new Subject<RebalanceEvent>();
 *   consumeBatches(consumer, { topics: ['orders'], maxBatchSize: 500, maxInFlight: 4, events })
 *     .pipe(commitAcknowledged(consumer, { intervalMs: 1000 }))
 *     .subscribe();
 */
import { Observable, Subscription } from 'rxjs';
import type {
  BrokerConsumer,
  ConsumedMessage,
  RebalanceEvent,
  TopicPartition,
} from '../engine/broker/types.ts';
import type { Batch } from './batch.ts';
import { OffsetTracker } from './offset-tracker.ts';

export interface ConsumeBatchesOptions {
  readonly topics: readonly string[];
  readonly maxBatchSize: number;
  /** Unacknowledged batches allowed before the source pauses its partitions. */
  readonly maxInFlight: number;
  /** How long one poll waits for messages; default 100 ms. */
  readonly pollTimeoutMs?: number;
  /** `true` pauses consumption (control plane), `false` resumes it. */
  readonly paused?: Observable<boolean>;
  /** Receives every assignment and revocation. */
  readonly events?: { next(event: RebalanceEvent): void };
  /** Stops reading and completes the stream once it emits. */
  readonly drain?: Observable<unknown>;
  /** Longest wait for a revoked partition's in-flight batches; default 30 s. */
  readonly revokeTimeoutMs?: number;
  /** Reports a failed commit during a revocation (the next owner re-reads those messages). */
  readonly onRevokeError?: (error: unknown) => void;
}

export function consumeBatches(
  consumer: BrokerConsumer,
  options: ConsumeBatchesOptions,
): Observable<Batch<ConsumedMessage>> {
  const pollTimeoutMs = options.pollTimeoutMs ?? 100;
  const revokeTimeoutMs = options.revokeTimeoutMs ?? 30_000;
  return new Observable((subscriber) => {
    const tracker = new OffsetTracker();
    const stopPolling = new AbortController();
    const subscriptions: Subscription[] = [];
    let buffer: ConsumedMessage[] = [];
    let pausedByControl = false;
    let partitionsPaused = false;
    let stopped = false;
    let emitting = false;

    const canEmit = () => !stopped && !pausedByControl && tracker.inFlight < options.maxInFlight;

    const syncPause = () => {
      const wanted = !canEmit();
      if (wanted === partitionsPaused || stopped) return;
      partitionsPaused = wanted;
      if (wanted) consumer.pause(consumer.assignment());
      else consumer.resume(consumer.assignment());
    };

    const emit = () => {
      if (emitting) return; // Re-entered from a synchronous acknowledgement: the loop below continues.
      emitting = true;
      while (canEmit() && buffer.length > 0) {
        const items = buffer.length <= options.maxBatchSize ? buffer : buffer.slice(0, options.maxBatchSize);
        buffer = items === buffer ? [] : buffer.slice(options.maxBatchSize);
        subscriber.next({ items, acks: [tracker.track(items)] });
      }
      emitting = false;
      syncPause();
    };

    const waitUntilSettled = (partitions: readonly TopicPartition[]) =>
      new Promise<void>((resolve) => {
        if (tracker.settled(partitions)) return resolve();
        const done = () => {
          clearTimeout(timer);
          unlisten();
          resolve();
        };
        const timer = setTimeout(done, revokeTimeoutMs);
        const unlisten = tracker.onAck(() => {
          if (tracker.settled(partitions)) done();
        });
      });

    const onRebalance = async (event: RebalanceEvent) => {
      if (stopped) return;
      options.events?.next(event);
      if (event.kind === 'assign') {
        if (partitionsPaused) consumer.pause(event.partitions);
        return;
      }
      const revoked = new Set(event.partitions.map((p) => `${p.partition}:${p.topic}`));
      buffer = buffer.filter((m) => !revoked.has(`${m.partition}:${m.topic}`));
      await waitUntilSettled(event.partitions);
      const offsets = tracker.committable(event.partitions);
      try {
        await consumer.commit(offsets);
      } catch (error) {
        options.onRevokeError?.(error);
      }
      tracker.forget(event.partitions);
    };

    const stop = () => {
      stopped = true;
      stopPolling.abort();
    };

    subscriptions.push(
      new Subscription(tracker.onAck(emit)),
      ...(options.paused
        ? [
            options.paused.subscribe((paused) => {
              pausedByControl = paused;
              emit();
            }),
          ]
        : []),
      ...(options.drain
        ? [
            options.drain.subscribe(() => {
              stop();
              subscriber.complete();
            }),
          ]
        : []),
    );
    consumer.onRebalance(onRebalance);
    consumer.subscribe(options.topics);

    (async () => {
      while (!stopped) {
        const messages = await consumer.consume(options.maxBatchSize, pollTimeoutMs, stopPolling.signal);
        if (stopped) break;
        if (messages.length > 0) {
          if (buffer.length === 0) buffer = messages;
          else for (const message of messages) buffer.push(message);
          emit();
        }
      }
    })().catch((error: unknown) => {
      if (!stopped) subscriber.error(error);
    });

    return () => {
      stop();
      for (const subscription of subscriptions) subscription.unsubscribe();
    };
  });
}
