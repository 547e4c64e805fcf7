/**
 * Produces the events of an embedded-mode input file (default: this folder's `events.jsonl`) to
 * Kafka, for running the single-view example in Kafka mode (README "Running on Kafka and
 * MongoDB"). Each line `{"topic", "key", "value"}` becomes one record (keys and values as JSON;
 * `rawKey`/`rawValue` as given), in file order; it exits once every record is acknowledged.
 *
 *   KAFKA_BROKERS=127.0.0.1:9092 node --import tsx examples/single-view/produce.ts [events.jsonl]
 */
import { fileURLToPath } from 'node:url';
import { readInputFile } from '../../engine/embedded/input.ts';
import { createKafkaBroker } from '../../operators/broker/kafka/index.ts';

const TOPICS = new Set(['customers', 'orders', 'items']);

async function main(): Promise<void> {
  const brokers = process.env.KAFKA_BROKERS ?? '127.0.0.1:9092';
  const file = process.argv[2] ?? fileURLToPath(new URL('events.jsonl', import.meta.url));
  const producer = createKafkaBroker({ properties: { 'bootstrap.servers': brokers } }).producer();
  await producer.connect();
  const perTopic = new Map<string, number>();
  try {
    // One at a time, so the file's order is the order on each partition.
    for await (const record of readInputFile(file, TOPICS)) {
      await producer.produce(record);
      perTopic.set(record.topic, (perTopic.get(record.topic) ?? 0) + 1);
    }
    await producer.flush(10_000);
  } finally {
    await producer.disconnect();
  }
  const counts = [...perTopic].map(([topic, n]) => `${topic} ${n}`).join(', ');
  console.log(`produced to ${brokers}: ${counts}`);
}

main().catch((error: Error) => {
  console.error(`produce: ${error.message}`);
  process.exit(1);
});
