/**
 * A run's input, produced from a process of its own as a source system would:
 * `node --import tsx bench/harness/input-feed.ts '<InputFeedSpec JSON>'`. In the measured process
 * it would share the event loop, the cores' time and the memory with the target (a million
 * generated events alone take hundreds of megabytes), and in paced runs its own produce latency
 * would count as the target's.
 *
 * Throughput runs: the workload's set-up events (W3's population) and then its stream, as fast
 * as the broker takes them, before the target starts. Paced runs: the stream at `rate` events/s
 * while the target runs, each record with its index in the stream (header `bench-seq`), so that
 * the run can match it, by its broker append time, to the outputs that answer it.
 */
import { createKafkaBroker } from '../../operators/broker/kafka/index.ts';
import type { ProducerRecord } from '../../operators/broker/types.ts';
import { WORKLOADS, type WorkloadId } from '../workloads/index.ts';
import { feed } from './feed.ts';
import { runAsChild } from './run-child.ts';

export const SEQ_HEADER = 'bench-seq';

export interface InputFeedSpec {
  readonly bootstrap: string;
  readonly workload: WorkloadId;
  readonly events: number;
  readonly seed: number;
  /** The workload's scale (W3: customers in its population); default 0. */
  readonly scale?: number;
  /** Events per second while the target runs (paced); absent: all at once, before it starts. */
  readonly rate?: number;
  /** Workload node -> the run's input topic. */
  readonly topics: Readonly<Record<string, string>>;
}

/** The workload's records to the run's topics: set-up first, then the stream (paced: indexed). */
export function* inputRecords(spec: InputFeedSpec): Iterable<ProducerRecord> {
  const workload = WORKLOADS[spec.workload];
  const to = (record: ProducerRecord) => spec.topics[record.topic] as string;
  if (!spec.rate)
    for (const event of workload.setup(spec.seed, spec.scale ?? 0))
      yield { ...event.record, topic: to(event.record) };
  let seq = 0;
  for (const event of workload.stream(spec.events, spec.seed, spec.scale ?? 0)) {
    yield spec.rate
      ? { ...event.record, topic: to(event.record), headers: [{ [SEQ_HEADER]: String(seq++) }] }
      : { ...event.record, topic: to(event.record) };
  }
}

async function produceInput(spec: InputFeedSpec): Promise<{ produced: number }> {
  // Keys hashed as Kafka's Java clients (Debezium, Connect) do: the Kafka Streams peer's key joins
  // need input partitioned the way its own repartition topics are.
  const producer = createKafkaBroker({ properties: { 'bootstrap.servers': spec.bootstrap } }).producer({
    properties: { partitioner: 'murmur2_random' },
  });
  await producer.connect();
  try {
    const produced = await feed(
      producer,
      inputRecords(spec),
      spec.rate ? { rate: spec.rate, unacknowledged: true } : {},
    );
    return { produced };
  } finally {
    await producer.disconnect();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) runAsChild(produceInput);
