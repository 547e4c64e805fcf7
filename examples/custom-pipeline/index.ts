/**
 * A pipeline built from streamfold's operators: read `prices`, keep the latest price per product
 * within 100 ms windows, convert cents to a JSON document, write it to `prices-latest`, and commit
 * the input offsets once the outputs are acknowledged.
 *
 *   node --import tsx examples/custom-pipeline/index.ts                 # in-process broker
 *   KAFKA_BROKERS=localhost:9092 node --import tsx examples/custom-pipeline/index.ts
 *     (Kafka: the topics `prices` and `prices-latest` must exist; Ctrl-C drains and stops)
 */
import { map, Subject } from 'rxjs';
import { createKafkaBroker } from '../../operators/broker/kafka/index.ts';
import { MemoryBroker } from '../../operators/broker/memory/index.ts';
import type { Broker, ConsumedMessage, ProducerRecord } from '../../operators/broker/types.ts';
import {
  commitAcknowledged,
  compressByKey,
  consumeBatches,
  mapBatch,
  produceRecords,
} from '../../operators/index.ts';

const INPUT = 'prices';
const OUTPUT = 'prices-latest';

function toOutput(message: ConsumedMessage): ProducerRecord {
  const { cents } = JSON.parse(String(message.value)) as { cents: number };
  return { topic: OUTPUT, key: message.key, value: Buffer.from(JSON.stringify({ price: cents / 100 })) };
}

async function run(broker: Broker, drain: Subject<void>): Promise<void> {
  const consumer = broker.consumer({ groupId: 'custom-pipeline' });
  const producer = broker.producer();
  await Promise.all([consumer.connect(), producer.connect()]);
  let compressed = '';
  await new Promise<void>((resolve, reject) =>
    consumeBatches(consumer, { topics: [INPUT], maxBatchSize: 500, maxInFlight: 4, drain })
      .pipe(
        compressByKey({
          windowMs: 100,
          keyOf: (message) => String(message.key),
          onCompressed: (inCount, outCount) => (compressed = `${inCount} messages -> ${outCount} outputs`),
        }),
        map((batch) => mapBatch(batch, toOutput)),
        produceRecords(producer, { concurrency: 2 }),
        commitAcknowledged(consumer, { intervalMs: 1000 }),
      )
      .subscribe({ error: reject, complete: resolve }),
  );
  console.log(`last window: ${compressed}`);
  await Promise.all([consumer.disconnect(), producer.disconnect()]);
}

async function main(): Promise<void> {
  const drain = new Subject<void>();
  const brokers = process.env.KAFKA_BROKERS;
  if (brokers) {
    process.once('SIGINT', () => drain.next());
    process.once('SIGTERM', () => drain.next());
    await run(createKafkaBroker({ properties: { 'bootstrap.servers': brokers } }), drain);
    return;
  }
  const broker = new MemoryBroker({ topics: { [INPUT]: 2, [OUTPUT]: 2 } });
  const producer = broker.producer();
  for (let i = 0; i < 1000; i++) {
    const product = `p${i % 10}`;
    await producer.produce({
      topic: INPUT,
      key: Buffer.from(product),
      value: Buffer.from(JSON.stringify({ cents: i })),
    });
  }
  const running = run(broker, drain);
  // Embedded runs end when everything written has been processed and committed.
  await broker.caughtUp('custom-pipeline');
  drain.next();
  await running;
  const latest = new Map<string, string>();
  for (const message of broker
    .messages(OUTPUT)
    .flat()
    .sort((a, b) => (a.timestamp ?? 0) - (b.timestamp ?? 0))) {
    latest.set(String(message.key), String(message.value));
  }
  console.log(
    `${broker.messages(OUTPUT).flat().length} outputs; latest per product:`,
    Object.fromEntries(latest),
  );
}

await main();
