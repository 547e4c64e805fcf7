import { MemoryBroker } from '../../engine/broker/memory/index.ts';
import type { ProducerRecord } from '../../engine/broker/types.ts';
import { feed } from './feed.ts';

const OUTPUT = 'output';

/**
 * The physical limit of the I/O path: consume -> JSON parse -> JSON serialize -> produce ->
 * commit on the same in-process broker, same topics, partitions and batch size as the engine,
 * no store. Returns the time from the first append to the last output append.
 */
export async function runCeiling(
  records: Iterable<ProducerRecord>,
  topics: readonly string[],
  partitions: number,
  rate?: number,
): Promise<{ seconds: number; outputs: number; events: number }> {
  const broker = new MemoryBroker({
    topics: Object.fromEntries([...topics, OUTPUT].map((t) => [t, partitions])),
  });
  const consumer = broker.consumer({ groupId: 'ceiling' });
  consumer.subscribe(topics);
  const producer = broker.producer();
  let consumed = 0;
  let fedTotal = -1;
  let lastOutput = 0;
  const loop = (async () => {
    while (fedTotal < 0 || consumed < fedTotal) {
      const batch = await consumer.consume(1000, 20);
      const acks: Promise<{ timestamp?: number }>[] = [];
      const next = new Map<string, { topic: string; partition: number; offset: number }>();
      for (const message of batch) {
        const key = JSON.parse((message.key as Buffer).toString('utf8'));
        const value = JSON.parse((message.value as Buffer).toString('utf8'));
        acks.push(
          producer.produce({
            topic: OUTPUT,
            key: Buffer.from(JSON.stringify(key)),
            value: Buffer.from(JSON.stringify(value)),
          }) as Promise<{ timestamp?: number }>,
        );
        next.set(`${message.topic}/${message.partition}`, {
          topic: message.topic,
          partition: message.partition,
          offset: message.offset + 1,
        });
      }
      for (const report of await Promise.all(acks)) lastOutput = Math.max(lastOutput, report.timestamp ?? 0);
      if (next.size > 0) await consumer.commit([...next.values()]);
      consumed += batch.length;
    }
  })();
  const started = Date.now();
  fedTotal = await feed(producer, records, rate ? { rate } : {});
  await loop;
  await consumer.disconnect();
  return { seconds: Math.max(1, lastOutput - started) / 1000, outputs: consumed, events: fedTotal };
}
