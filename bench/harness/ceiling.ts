import { MemoryBroker } from '../../operators/broker/memory/index.ts';
import { nextOffsets } from '../../operators/broker/next-offsets.ts';
import type { BrokerProducer, ProducerRecord } from '../../operators/broker/types.ts';
import { feed } from './feed.ts';
import { type Load, measureLoad } from './load.ts';

const OUTPUT = 'output';

export interface CeilingOptions {
  /** Paced feeding in events/s; absent: as fast as possible. */
  readonly rate?: number;
  /**
   * Transforms chained from the input topics to the output (default 1: the ceiling). 2 is the
   * hop structure `engine.md` §6 prescribes (input -> internal updates -> output) with nothing
   * else: no store, no graph, no compression, each event echoed.
   */
  readonly hops?: number;
}

/**
 * The physical limit of the I/O path: consume -> JSON parse -> JSON serialize -> produce ->
 * commit on the same in-process broker as the engine (same topics, partitions, batch size and
 * retention of uncommitted messages only), no store. Its output is read and committed as
 * embedded mode reads the engine's. Returns the time from the first append to the last output.
 */
export async function runCeiling(
  records: Iterable<ProducerRecord>,
  topics: readonly string[],
  partitions: number,
  options: CeilingOptions = {},
): Promise<{ seconds: number; load: Load; outputs: number; outputBytes: number; events: number }> {
  const hops = options.hops ?? 1;
  if (!Number.isInteger(hops) || hops < 1) throw new Error(`hops must be a positive integer, got ${hops}`);
  // Hop i reads sources[i] and writes sinks[i]: input topics -> hop-1 -> ... -> output.
  const intermediate = Array.from({ length: hops - 1 }, (_, i) => `hop-${i + 1}`);
  const broker = new MemoryBroker({
    topics: Object.fromEntries([...topics, ...intermediate, OUTPUT].map((t) => [t, partitions])),
    retention: 'committed',
  });
  const producer = broker.producer();
  const sources: (readonly string[])[] = [topics, ...intermediate.map((t) => [t])];
  const sinks = [...intermediate, OUTPUT];
  // The feed's total, known once it ends: then each hop is done when it has passed that many on.
  let fedTotal = -1;
  const transforms = sources.map((from, hop) =>
    echo(broker, producer, from, sinks[hop] as string, { group: `ceiling-${hop}`, total: () => fedTotal }),
  );

  const reader = broker.consumer({ groupId: 'ceiling-output' });
  reader.subscribe([OUTPUT]);
  let read = 0;
  let lastOutput = 0;
  let outputBytes = 0;
  const output = (async () => {
    while (fedTotal < 0 || read < fedTotal) {
      const batch = await reader.consume(10_000, 20);
      for (const message of batch) {
        lastOutput = Math.max(lastOutput, message.timestamp ?? 0);
        outputBytes += message.value?.length ?? 0;
      }
      await reader.commit(nextOffsets(batch));
      read += batch.length;
    }
  })();
  const started = Date.now();
  const loadSince = measureLoad();
  fedTotal = await feed(producer, records, options.rate ? { rate: options.rate } : {});
  await Promise.all(transforms);
  await output;
  const load = loadSince();
  await reader.disconnect();
  return {
    seconds: Math.max(1, lastOutput - started) / 1000,
    load,
    outputs: read,
    outputBytes,
    events: fedTotal,
  };
}

/** One hop: consume `from`, parse key and value, serialize them again, produce to `to`, commit. */
async function echo(
  broker: MemoryBroker,
  producer: BrokerProducer,
  from: readonly string[],
  to: string,
  progress: { readonly group: string; readonly total: () => number },
): Promise<void> {
  const consumer = broker.consumer({ groupId: progress.group });
  consumer.subscribe(from);
  let passed = 0;
  while (progress.total() < 0 || passed < progress.total()) {
    const batch = await consumer.consume(1000, 20);
    const acks: Promise<unknown>[] = [];
    for (const message of batch) {
      const key = JSON.parse((message.key as Buffer).toString('utf8'));
      const value = JSON.parse((message.value as Buffer).toString('utf8'));
      acks.push(
        producer.produce({
          topic: to,
          key: Buffer.from(JSON.stringify(key)),
          value: Buffer.from(JSON.stringify(value)),
        }),
      );
    }
    await Promise.all(acks);
    await consumer.commit(nextOffsets(batch));
    passed += batch.length;
  }
  await consumer.disconnect();
}
