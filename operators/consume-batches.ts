/**
 * The source of a pipeline: subscribes `consumer` to `topics` and emits batches of at most
 * `maxBatchSize` messages, each carrying the acknowledgement `commitAcknowledged` commits from.
 *
 * Backpressure: while `maxInFlight` batches are unacknowledged the source stops polling, so the
 * client keeps what it fetched ahead (a Kafka pause would discard it, and fetch it again on
 * resume). Only when that lasts longer than `pauseAfterMs`, or while `paused` says so (the control
 * plane), are the assigned partitions paused and polling resumed, so that the consumer serves its
 * group's rebalances and commits; nothing is dropped or read twice either way.
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
import type { Batch } from './batch.ts';
import type { BrokerConsumer, ConsumedMessage, RebalanceEvent, TopicPartition } from './broker/types.ts';
import { OffsetTracker } from './offset-tracker.ts';

export interface ConsumeBatchesOptions {
  readonly topics: readonly string[];
  readonly maxBatchSize: number;
  /** Unacknowledged batches allowed before the source stops reading. */
  readonly maxInFlight: number;
  /** Longest wait of one poll for its first message; default 100 ms. */
  readonly pollTimeoutMs?: number;
  /**
   * How long the source may stop polling for backpressure before it pauses its partitions and
   * polls again (a consumer that does not poll serves no rebalance); default 1000 ms.
   */
  readonly pauseAfterMs?: number;
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
  /** Told of each poll, wait and pause, for metrics (`streamfold_poll_*`, `streamfold_partition_pauses_total`). */
  readonly observer?: ConsumeObserver;
}

/** What a source did, for metrics: the figures that tell where a pipeline's time goes. */
export interface ConsumeObserver {
  /** A poll returned `count` messages (0: it timed out) after `ms`. */
  polled?(count: number, ms: number): void;
  /** The source did not poll for `ms` because every in-flight slot was taken. */
  waited?(ms: number): void;
  /** Partitions were paused (a long backpressure or the control plane) or resumed. */
  paused?(partitions: number): void;
  resumed?(partitions: number): void;
}

export function consumeBatches(
  consumer: BrokerConsumer,
  options: ConsumeBatchesOptions,
): Observable<Batch<ConsumedMessage>> {
  const pollTimeoutMs = options.pollTimeoutMs ?? 100;
  const pauseAfterMs = options.pauseAfterMs ?? 1000;
  const revokeTimeoutMs = options.revokeTimeoutMs ?? 30_000;
  const observer = options.observer;
  return new Observable((subscriber) => {
    const tracker = new OffsetTracker();
    const stopPolling = new AbortController();
    const subscriptions: Subscription[] = [];
    /** Messages polled and not emitted yet (a poll that ended after the control plane paused). */
    let buffer: ConsumedMessage[] = [];
    let pausedByControl = false;
    let partitionsPaused = false;
    let stopped = false;
    let emitting = false;
    /** Wakes the polling loop waiting for room (an acknowledgement, the control plane, a stop). */
    let wake: (() => void) | null = null;

    const hasRoom = () => !pausedByControl && tracker.inFlight < options.maxInFlight;

    const setPaused = (pause: boolean) => {
      if (pause === partitionsPaused) return;
      partitionsPaused = pause;
      const assigned = consumer.assignment();
      if (pause) {
        consumer.pause(assigned);
        observer?.paused?.(assigned.length);
      } else {
        consumer.resume(assigned);
        observer?.resumed?.(assigned.length);
      }
    };

    const emit = () => {
      if (emitting) return; // Re-entered from a synchronous acknowledgement: the loop below continues.
      emitting = true;
      while (!stopped && hasRoom() && buffer.length > 0) {
        const items = buffer.length <= options.maxBatchSize ? buffer : buffer.slice(0, options.maxBatchSize);
        buffer = items === buffer ? [] : buffer.slice(options.maxBatchSize);
        subscriber.next({ items, acks: [tracker.track(items)] });
      }
      emitting = false;
      if (hasRoom() || stopped) {
        const woken = wake;
        wake = null;
        woken?.();
      }
    };

    /** Resolves true once there is room, false after `ms` without (or at once when `ms` is 0). */
    const roomWithin = (ms: number) =>
      new Promise<boolean>((resolve) => {
        if (hasRoom() || stopped) return resolve(true);
        if (ms <= 0) return resolve(false);
        const timer = setTimeout(() => {
          wake = null;
          resolve(false);
        }, ms);
        wake = () => {
          clearTimeout(timer);
          resolve(true);
        };
      });

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
        // librdkafka keeps a partition's pause across a revocation and a new assignment of it
        // (librdkafka#1849): a resume made while it was not assigned did not reach it, so each
        // assignment is set to the source's state, paused or not.
        if (partitionsPaused) consumer.pause(event.partitions);
        else consumer.resume(event.partitions);
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
      emit();
    };

    subscriptions.push(
      new Subscription(tracker.onAck(emit)),
      ...(options.paused
        ? [
            options.paused.subscribe((paused) => {
              pausedByControl = paused;
              emit();
              // Paused: stop fetching now, not after the backpressure's grace period.
              if (paused && !stopped) setPaused(true);
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
        if (!hasRoom() && !partitionsPaused) {
          const started = Date.now();
          const room = await roomWithin(pausedByControl ? 0 : pauseAfterMs);
          observer?.waited?.(Date.now() - started);
          if (stopped) break;
          if (!room) setPaused(true);
          continue;
        }
        if (hasRoom() && partitionsPaused) setPaused(false);
        const started = Date.now();
        const messages = await consumer.consume(options.maxBatchSize, pollTimeoutMs, stopPolling.signal);
        if (stopped) break;
        observer?.polled?.(messages.length, Date.now() - started);
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
