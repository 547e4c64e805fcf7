import { concatMap, map, mergeMap, type Observable } from 'rxjs';
import type { BrokerConsumer, RebalanceEvent } from '../../operators/broker/types.ts';
import {
  type Batch,
  type ConsumeObserver,
  commitAcknowledged,
  compressByKey,
  consumeBatches,
  withItems,
} from '../../operators/index.ts';
import {
  decodeInternalUpdates,
  type InternalUpdate,
  internalUpdateId,
  mergeInternalUpdates,
} from '../internal-updates/message.ts';
import type { EngineMetrics } from '../metrics/index.ts';
import type { RuntimeContext } from './context.ts';
import { KeyedSequencer } from './keyed-sequencer.ts';
import { startInputBatch } from './process-input.ts';
import { recomputeHeads } from './recompute.ts';

export interface PipelineOptions {
  readonly maxBatchSize: number;
  readonly maxInFlight: number;
  readonly commitIntervalMs: number;
  /** Completes the source; in-flight batches finish and are committed before the pipeline completes. */
  readonly stop: Observable<unknown>;
  readonly paused?: Observable<boolean>;
  /** Receives the consumer's assignments and revocations (readiness). */
  readonly events?: { next(event: RebalanceEvent): void };
}

/**
 * One consumer node: read batches, store them, publish internal updates, then commit
 * (`engine.md` §6, §7). A batch is committed only after everything it caused is acknowledged;
 * later batches may be acknowledged first (the offset tracker commits the acknowledged prefix).
 */
/** Reports a pipeline's polls, waits and pauses to the engine's metrics. */
function consumeObserver(metrics: EngineMetrics, pipeline: string): ConsumeObserver {
  const labels = { pipeline };
  return {
    polled: (count) => metrics.pollMessages.observe(labels, count),
    waited: (ms) => metrics.backpressureSeconds.inc(labels, ms / 1000),
    paused: (partitions) => metrics.partitionPauses.inc(labels, partitions),
  };
}

export function inputPipeline(
  ctx: RuntimeContext,
  nodeId: string,
  topic: string,
  consumer: BrokerConsumer,
  options: PipelineOptions,
): Observable<Batch<unknown>> {
  return consumeBatches(consumer, {
    topics: [topic],
    maxBatchSize: options.maxBatchSize,
    maxInFlight: options.maxInFlight,
    drain: options.stop,
    observer: consumeObserver(ctx.metrics, nodeId),
    ...(options.paused ? { paused: options.paused } : {}),
    ...(options.events ? { events: options.events } : {}),
  }).pipe(
    // Batches are stored one after another, in order; their acknowledgements are awaited side by
    // side (the source's `maxInFlight` bounds how many), so the next batch is stored meanwhile.
    // The messages are let go once stored (only their acknowledgement travels on), so that they
    // die young instead of waiting in the old generation for a major collection.
    concatMap(async (batch) => ({
      batch: withItems(batch, []),
      started: await startInputBatch(ctx, nodeId, batch.items),
    })),
    mergeMap(async ({ batch, started }) => {
      await started.acknowledged;
      return batch;
    }),
    commitAcknowledged(consumer, { intervalMs: options.commitIntervalMs }),
  );
}

/** Head keys recomputed per batch at most (5 store round trips on W1 whatever the size, 6 when a head was deleted). */
export const RECOMPUTE_MAX_HEADS = 1024;

/**
 * Recompute batches under way at once: the next one renders while the last one's outputs await
 * their acknowledgements (a broker round trip it used to wait for). A head key is recomputed by
 * one batch at a time, in the order the batches came (`KeyedSequencer`): its outputs and its
 * remembered aggregate stay in order.
 */
const RECOMPUTE_CONCURRENCY = 2;

/**
 * The internal-updates topic: compress per head key within the window, recompute those heads,
 * emit, then commit. A message carries one head key or many (amended §6), each decoded into its
 * updates; malformed messages (not written by this engine) are counted and skipped whole.
 */
export function internalUpdatesPipeline(
  ctx: RuntimeContext,
  consumer: BrokerConsumer,
  windowMs: number,
  options: PipelineOptions,
): Observable<Batch<unknown>> {
  const compressed = { in: 0, out: 0 };
  const sequencer = new KeyedSequencer();
  let lastBatch: Promise<void> = Promise.resolve();
  return consumeBatches(consumer, {
    topics: [ctx.internalTopic],
    maxBatchSize: options.maxBatchSize,
    maxInFlight: options.maxInFlight,
    drain: options.stop,
    observer: consumeObserver(ctx.metrics, 'internal-updates'),
    ...(options.events ? { events: options.events } : {}),
  }).pipe(
    map((batch) =>
      withItems(
        batch,
        batch.items.flatMap((message) => {
          const updates = decodeInternalUpdates(message.value);
          if (updates) return updates;
          ctx.metrics.invalid.inc({ node: '__internal_updates', reason: 'not-an-internal-update' });
          ctx.logger.warn(
            { topic: message.topic, partition: message.partition, offset: message.offset },
            'skipping a message of the internal-updates topic that this engine did not write',
          );
          return [];
        }),
      ),
    ),
    compressByKey<InternalUpdate>({
      windowMs,
      // A bounded number of recomputes at a time: windows that close meanwhile merge into the
      // next, larger batch (fewer store round trips under load) instead of queueing up one each.
      maxInFlight: RECOMPUTE_CONCURRENCY,
      // ...but bounded: the batch's store requests and outputs are held in memory at once.
      maxBatchSize: RECOMPUTE_MAX_HEADS,
      keyOf: internalUpdateId,
      merge: mergeInternalUpdates,
      onCompressed: (inCount, outCount) => {
        compressed.in += inCount;
        compressed.out += outCount;
        ctx.metrics.internalIn.inc(inCount);
        ctx.metrics.internalOut.inc(outCount);
        if (compressed.out > 0) ctx.metrics.compressionRatio.set(compressed.in / compressed.out);
      },
    }),
    mergeMap(async (batch) => {
      // Emitted (so acknowledged) in the order they came, whichever finishes first: an input
      // batch's acknowledgements travel with the last batch holding one of its keys, which must
      // not be committed while an earlier batch with its other keys is still under way.
      const earlier = lastBatch;
      let finish!: () => void;
      lastBatch = new Promise<void>((resolve) => {
        finish = resolve;
      });
      try {
        await sequencer.run(batch.items.map(internalUpdateId), () => recomputeHeads(ctx, batch.items));
        await earlier;
        return batch;
      } finally {
        finish();
      }
    }, RECOMPUTE_CONCURRENCY),
    commitAcknowledged(consumer, { intervalMs: options.commitIntervalMs }),
  );
}
