/**
 * The input of a paced (latency) run, produced from a process of its own as a source system
 * would: `node --import tsx bench/harness/paced-feed.ts '<PacedFeedSpec JSON>'`. In the measured
 * process it would share the event loop and the cores' time with the target, and its own produce
 * latency would count as the target's.
 *
 * Each record carries its index in the stream (header `bench-seq`), so that the run can match it,
 * by its broker append time, to the outputs that answer it.
 */
import { createKafkaBroker } from '../../engine/broker/kafka/index.ts';
import type { ProducerRecord } from '../../engine/broker/types.ts';
import { WORKLOADS, type WorkloadId } from '../workloads/index.ts';
import { feed } from './feed.ts';
import { runAsChild } from './run-child.ts';

export const SEQ_HEADER = 'bench-seq';

export interface PacedFeedSpec {
  readonly bootstrap: string;
  readonly workload: WorkloadId;
  readonly events: number;
  readonly seed: number;
  /** Events per second. */
  readonly rate: number;
  /** Workload node -> the run's input topic. */
  readonly topics: Readonly<Record<string, string>>;
}

/** The workload's records to the run's topics, each with its index. */
export function* pacedRecords(spec: PacedFeedSpec): Iterable<ProducerRecord> {
  let seq = 0;
  for (const event of WORKLOADS[spec.workload].stream(spec.events, spec.seed, 0)) {
    yield {
      ...event.record,
      topic: spec.topics[event.record.topic] as string,
      headers: [{ [SEQ_HEADER]: String(seq++) }],
    };
  }
}

async function producePaced(spec: PacedFeedSpec): Promise<{ produced: number }> {
  // Keys hashed as Kafka's Java clients do, like the throughput runs' input (kafka-run.ts).
  const producer = createKafkaBroker({ properties: { 'bootstrap.servers': spec.bootstrap } }).producer({
    properties: { partitioner: 'murmur2_random' },
  });
  await producer.connect();
  try {
    const produced = await feed(producer, pacedRecords(spec), { rate: spec.rate, unacknowledged: true });
    return { produced };
  } finally {
    await producer.disconnect();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) runAsChild(producePaced);
