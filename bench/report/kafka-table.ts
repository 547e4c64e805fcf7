import type { KafkaRunResult } from '../harness/kafka-run.ts';
import type { RestRunResult } from '../harness/rest-run.ts';
import { number } from './table.ts';

export interface KafkaRow {
  readonly label: string;
  /** The median run of the row's runs by events/s. */
  readonly result: KafkaRunResult;
  /** Lowest and highest events/s when the row is the median of several runs. */
  readonly range?: readonly [number, number];
  /**
   * The same workload's anchors in this run, their medians: the raw-client pipe, and the Kafka
   * Streams peer on in-memory and on RocksDB stores. None of them shares the engine's code.
   */
  readonly anchors?: {
    readonly raw?: KafkaRunResult | null;
    readonly streamsMemory?: KafkaRunResult | null;
    readonly streamsRocksdb?: KafkaRunResult | null;
  };
}

export const KAFKA_COLUMNS = [
  'run',
  'events',
  'events/s',
  'range',
  'x raw pipe',
  'x Kafka Streams (memory)',
  'x Kafka Streams (rocksdb)',
  'out msgs',
  'out B/event',
  'process CPU us/event',
  'x raw pipe CPU',
  'broker CPU us/event',
  'store CPU us/event',
  'p50 ms',
  'p99 ms',
  'rt/event',
  'compression',
  'peak RSS MB',
] as const;

const line = (row: readonly string[]) => `| ${row.join(' | ')} |`;

/** The Kafka-mode runs in Markdown, one line per row. */
export function formatKafkaTable(rows: readonly KafkaRow[]): string {
  return [
    line(KAFKA_COLUMNS),
    line(KAFKA_COLUMNS.map(() => '---')),
    ...rows.map((row) => line(kafkaCells(row))),
  ].join('\n');
}

function kafkaCells({ label, result, range, anchors }: KafkaRow): string[] {
  // The stand-in's speed is no figure of the engine's: no ratio for its rows.
  const ratio = (anchor: KafkaRunResult | null | undefined, of: (r: KafkaRunResult) => number) =>
    anchor && !result.standIn && anchor !== result ? number(of(result) / of(anchor), 2) : '-';
  const rate = (r: KafkaRunResult) => r.inputPerSecond;
  return [
    `${label}${result.standIn ? ' (stand-in)' : ''}`,
    number(result.spec.events),
    number(result.inputPerSecond),
    range ? `${number(range[0])}-${number(range[1])}` : '-',
    ratio(anchors?.raw, rate),
    ratio(anchors?.streamsMemory, rate),
    ratio(anchors?.streamsRocksdb, rate),
    number(result.outputMessages),
    number(result.outputBytesPerEvent),
    number(result.cpuMicrosPerEvent, 1),
    ratio(anchors?.raw, (r) => r.cpuMicrosPerEvent),
    number(result.brokerCpuMicrosPerEvent, 1),
    number(result.storeCpuMicrosPerEvent, 1),
    number(result.latencyMs?.p50),
    number(result.latencyMs?.p99),
    number(result.roundTripsPerEvent, 4),
    number(result.compression, 2),
    number(result.peakRssMb),
  ];
}

/** The broker's own tools on a workload's records: one line each. */
export interface BrokerLimitRow {
  readonly label: string;
  readonly records: number;
  readonly perSecond: number;
  readonly megabytesPerSecond: number;
}

export const BROKER_LIMIT_COLUMNS = [
  'broker limit (Apache Kafka tools)',
  'records',
  'records/s',
  'MB/s',
] as const;

export function formatBrokerLimitTable(rows: readonly BrokerLimitRow[]): string {
  return [
    line(BROKER_LIMIT_COLUMNS),
    line(BROKER_LIMIT_COLUMNS.map(() => '---')),
    ...rows.map((row) =>
      line([row.label, number(row.records), number(row.perSecond), number(row.megabytesPerSecond, 1)]),
    ),
  ].join('\n');
}

export interface RestRow {
  readonly label: string;
  readonly result: RestRunResult;
  readonly range?: readonly [number, number];
  /** The bare produce loop's requests/s in the same rounds (the REST row). */
  readonly bare?: number | null;
  /** The service process's CPU per request (the REST row). */
  readonly serviceCpuMicrosPerRequest?: number | null;
}

export const REST_COLUMNS = [
  'path',
  'requests',
  'concurrency',
  'req/s',
  'range',
  'x bare produce loop',
  'client CPU us/req',
  'service CPU us/req',
] as const;

export function formatRestTable(rows: readonly RestRow[]): string {
  return [
    line(REST_COLUMNS),
    line(REST_COLUMNS.map(() => '---')),
    ...rows.map(({ label, result, range, bare, serviceCpuMicrosPerRequest }) =>
      line([
        label,
        number(result.requests),
        number(result.concurrency),
        number(result.perSecond),
        range ? `${number(range[0])}-${number(range[1])}` : '-',
        bare ? number(result.perSecond / bare, 2) : '-',
        number(result.cpuMicrosPerRequest),
        number(serviceCpuMicrosPerRequest),
      ]),
    ),
  ].join('\n');
}
