import type { KafkaRunResult } from '../harness/kafka-run.ts';
import type { KafkaRow } from './kafka-table.ts';

/** What a Kafka-mode run measured that the targets are about (medians of the run). */
export interface KafkaTargetInputs {
  /** Per workload, the engine's MemoryStore median and its anchors. */
  readonly workloads: ReadonlyMap<
    string,
    { engine: KafkaRunResult; anchors: NonNullable<KafkaRow['anchors']> }
  >;
  /** The paced engine run (its workload and median), when there was one. */
  readonly paced?: { readonly workload: string; readonly result: KafkaRunResult };
  /** Peak RSS of the million-event run (MB), when there was one. */
  readonly rssMillionMb?: number | null;
}

const LABEL_WIDTH = 52;

function verdict(name: string, value: number | null | undefined, met: (v: number) => boolean, shown: string) {
  if (value === null || value === undefined) return `${name.padEnd(LABEL_WIDTH)} not run`;
  return `${name.padEnd(LABEL_WIDTH)} ${met(value) ? 'met   ' : 'missed'}  ${shown}`;
}

/**
 * The Kafka-mode targets (issue 34), each met, missed or not run: throughput at least 0.6 x the
 * raw-client pipe and ahead of the Kafka Streams peer on either store, CPU per event at most twice
 * the raw pipe's, p99 at half rate within 350 ms, and the million-event run's peak RSS within 300 MB.
 */
export function kafkaTargetVerdicts(inputs: KafkaTargetInputs): string[] {
  const lines: string[] = [];
  const times = (v: number | null) => (v === null ? '' : `${v.toFixed(2)} x`);
  for (const [id, { engine, anchors }] of inputs.workloads) {
    const x = (anchor: KafkaRunResult | null | undefined) =>
      anchor ? engine.inputPerSecond / anchor.inputPerSecond : null;
    lines.push(
      verdict(
        `${id} throughput >= 0.6 x the raw pipe`,
        x(anchors.raw),
        (v) => v >= 0.6,
        times(x(anchors.raw)),
      ),
    );
    for (const [store, anchor] of [
      ['memory', anchors.streamsMemory],
      ['rocksdb', anchors.streamsRocksdb],
    ] as const)
      lines.push(
        verdict(`${id} throughput > Kafka Streams (${store})`, x(anchor), (v) => v > 1, times(x(anchor))),
      );
    const cpu = anchors.raw ? engine.cpuMicrosPerEvent / anchors.raw.cpuMicrosPerEvent : null;
    lines.push(verdict(`${id} CPU per event <= 2 x the raw pipe's`, cpu, (v) => v <= 2, times(cpu)));
  }
  const p99 = inputs.paced?.result.latencyMs?.p99;
  lines.push(
    verdict(
      `${inputs.paced?.workload ?? 'W1'} p99 at half rate <= 350 ms`,
      p99,
      (v) => v <= 350,
      `${p99} ms`,
    ),
  );
  if (inputs.rssMillionMb !== undefined)
    lines.push(
      verdict(
        '1M events in Kafka mode: peak RSS <= 300 MB',
        inputs.rssMillionMb,
        (v) => v <= 300,
        `${Math.round(inputs.rssMillionMb ?? 0)} MB`,
      ),
    );
  return lines;
}
