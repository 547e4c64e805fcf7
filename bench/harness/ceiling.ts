import { MemoryBroker } from '../../engine/broker/memory/index.ts';
import { nextOffsets } from '../../engine/broker/next-offsets.ts';
import type { ProducerRecord } from '../../engine/broker/types.ts';
import { feed } from './feed.ts';
import { type Load, measureLoad } from './load.ts';

const OUTPUT = 'output';

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
  rate?: number,
): Promise<{ seconds: number; load: Load; outputs: number; outputBytes: number; events: number }> {
  const broker = new MemoryBroker({
    topics: Object.fromEntries([...topics, OUTPUT].map((t) => [t, partitions])),
    retention: 'committed',
  });
  const consumer = broker.consumer({ groupId: 'ceiling' });
  consumer.subscribe(topics);
  const reader = broker.consumer({ groupId: 'ceiling-output' });
  reader.subscribe([OUTPUT]);
  const producer = broker.producer();
  let consumed = 0;
  let read = 0;
  let fedTotal = -1;
  let lastOutput = 0;
  let outputBytes = 0;
  const done = () => fedTotal >= 0 && consumed >= fedTotal;
  const transform = (async () => {
    while (!done()) {
      const batch = await consumer.consume(1000, 20);
      const acks: Promise<unknown>[] = [];
      for (const message of batch) {
        const key = JSON.parse((message.key as Buffer).toString('utf8'));
        const value = JSON.parse((message.value as Buffer).toString('utf8'));
        acks.push(
          producer.produce({
            topic: OUTPUT,
            key: Buffer.from(JSON.stringify(key)),
            value: Buffer.from(JSON.stringify(value)),
          }),
        );
      }
      await Promise.all(acks);
      await consumer.commit(nextOffsets(batch));
      consumed += batch.length;
    }
  })();
  const output = (async () => {
    while (!done() || read < consumed) {
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
  fedTotal = await feed(producer, records, rate ? { rate } : {});
  await transform;
  await output;
  const load = loadSince();
  await consumer.disconnect();
  await reader.disconnect();
  return {
    seconds: Math.max(1, lastOutput - started) / 1000,
    load,
    outputs: consumed,
    outputBytes,
    events: fedTotal,
  };
}
