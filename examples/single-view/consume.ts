/**
 * Prints the single-view example's output topic (default `customer-views`) from its beginning,
 * one JSON line per message, `{"topic", "key", "value"}` as embedded mode's `--output` writes
 * them (a tombstone's value is null). Runs until Ctrl-C; each run reads from the start (a new
 * consumer group, nothing committed).
 *
 *   KAFKA_BROKERS=127.0.0.1:9092 node --import tsx examples/single-view/consume.ts [topic]
 */
import { createKafkaBroker } from '../../operators/broker/kafka/index.ts';
import type { ConsumedMessage } from '../../operators/broker/types.ts';

function json(bytes: Buffer | null): unknown {
  if (bytes === null) return null;
  const text = bytes.toString('utf8');
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

async function main(): Promise<void> {
  const brokers = process.env.KAFKA_BROKERS ?? '127.0.0.1:9092';
  const topic = process.argv[2] ?? 'customer-views';
  const consumer = createKafkaBroker({ properties: { 'bootstrap.servers': brokers } }).consumer({
    groupId: `single-view-reader-${process.pid}-${Date.now()}`,
  });
  await consumer.connect();
  consumer.subscribe([topic]);
  const stop = new AbortController();
  process.once('SIGINT', () => stop.abort());
  process.once('SIGTERM', () => stop.abort());
  console.error(`reading ${topic} on ${brokers} (Ctrl-C to stop)`);
  while (!stop.signal.aborted) {
    const messages: ConsumedMessage[] = await consumer.consume(100, 1000, stop.signal);
    for (const m of messages)
      console.log(JSON.stringify({ topic: m.topic, key: json(m.key), value: json(m.value) }));
  }
  await consumer.disconnect();
}

main().catch((error: Error) => {
  console.error(`consume: ${error.message}`);
  process.exit(1);
});
