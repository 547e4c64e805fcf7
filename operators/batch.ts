/**
 * The unit flowing through pipelines: items plus the acknowledgements of the consumed messages
 * they stand for. Acknowledging a batch (see `commitAcknowledged`) makes those messages
 * committable; a batch derived from others carries all their acknowledgements.
 *
 * @example
 *   const parsed = mapBatch(batch, (message) => JSON.parse(String(message.value)));
 *   const merged = mergeBatches([first, second]); // acknowledging it acknowledges both
 */
import type { OffsetTracker } from './offset-tracker.ts';

export interface Acknowledgement {
  /** Marks the consumed messages as processed; calling it again does nothing. */
  ack(): void;
  /** The source's bookkeeping this acknowledgement belongs to (what `commitAcknowledged` commits from). */
  readonly tracker: OffsetTracker;
}

export interface Batch<T> {
  readonly items: readonly T[];
  readonly acks: readonly Acknowledgement[];
}

/** The same acknowledgements, other items (a transformation's output). */
export function withItems<T>(batch: Batch<unknown>, items: readonly T[]): Batch<T> {
  return { items, acks: batch.acks };
}

export function mapBatch<T, U>(batch: Batch<T>, project: (item: T, index: number) => U): Batch<U> {
  return { items: batch.items.map(project), acks: batch.acks };
}

/** One batch holding every item, in order, and every acknowledgement of `batches`. */
export function mergeBatches<T>(batches: readonly Batch<T>[]): Batch<T> {
  if (batches.length === 1) return batches[0]!;
  return { items: batches.flatMap((b) => b.items), acks: batches.flatMap((b) => b.acks) };
}

export function acknowledge(batch: Batch<unknown>): void {
  for (const ack of batch.acks) ack.ack();
}
