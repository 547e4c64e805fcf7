import type { BrokerProducer } from '../../operators/broker/types.ts';
import { encodeInternalUpdate } from '../internal-updates/message.ts';
import type { Store } from '../store/types.ts';

export interface RefreshOptions {
  readonly store: Store;
  readonly producer: BrokerProducer;
  readonly internalTopic: string;
  readonly heads: readonly string[];
  readonly batchSize?: number;
  /** Called after each acknowledged batch with the records enqueued so far and the total. */
  readonly onProgress?: (done: number, total: number) => void;
}

/**
 * Full refresh (backfill): asks the engine to re-emit the current aggregate of every record of
 * the given heads, by publishing one internal update per head key with op `r` (a snapshot read).
 * Going through the internal-updates topic keeps the running engine the only writer of each head
 * key's output, so a refresh never races live updates; without a running engine the requests
 * wait in the topic. Reads the store in batches and waits for each batch's acknowledgements.
 */
export async function refreshHeads(options: RefreshOptions): Promise<{ enqueued: number }> {
  const batchSize = options.batchSize ?? 1000;
  const counts = await Promise.all(options.heads.map((head) => options.store.count(head)));
  const total = counts.reduce((a, b) => a + b, 0);
  let enqueued = 0;
  for (const head of options.heads) {
    for await (const records of options.store.scan(head, batchSize)) {
      await Promise.all(
        records.map((r) =>
          options.producer.produce(
            encodeInternalUpdate(options.internalTopic, { head, ck: r.ck, key: r.key, op: 'r' }),
          ),
        ),
      );
      enqueued += records.length;
      options.onProgress?.(enqueued, total);
    }
  }
  return { enqueued };
}
