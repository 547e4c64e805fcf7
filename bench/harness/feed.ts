import { setTimeout as sleep, setImmediate as yieldToLoop } from 'node:timers/promises';
import type { BrokerProducer, ProducerRecord } from '../../operators/broker/types.ts';

export interface FeedOptions {
  /** Events per second; absent: as fast as the broker takes them (yielding between chunks). */
  readonly rate?: number;
  readonly chunk?: number;
  /** Called with each record's index and append time (ms since epoch). */
  readonly onAppend?: (index: number, time: number) => void;
  /** Awaited before each chunk: the consumer's backpressure (a bounded input backlog). */
  readonly capacity?: () => Promise<void>;
  /**
   * Paced mode only: go on without awaiting each chunk's acknowledgements (all are awaited at the
   * end). On a real broker an acknowledgement takes a round trip, which would cap the rate.
   */
  readonly unacknowledged?: boolean;
}

/**
 * Appends records in chunks, yielding to the event loop between chunks so the engine (or the
 * ceiling loop) consumes while input arrives, as from a live topic. Paced mode spreads the
 * chunks so that the rate holds over the run.
 */
export async function feed(
  producer: BrokerProducer,
  records: Iterable<ProducerRecord>,
  options: FeedOptions = {},
): Promise<number> {
  const chunk = options.chunk ?? (options.rate ? Math.max(1, Math.round(options.rate / 200)) : 1000);
  const started = Date.now();
  let index = 0;
  let pending: Promise<unknown>[] = [];
  for (const record of records) {
    pending.push(producer.produce(record));
    options.onAppend?.(index, Date.now());
    index++;
    if (index % chunk !== 0) continue;
    if (!(options.rate && options.unacknowledged)) {
      await Promise.all(pending);
      pending = [];
    }
    if (options.rate) {
      const due = started + (index / options.rate) * 1000;
      const wait = due - Date.now();
      await (wait > 0 ? sleep(wait) : yieldToLoop());
    } else {
      await yieldToLoop();
    }
    await options.capacity?.();
  }
  await Promise.all(pending);
  return index;
}
