/**
 * The broker's limit on this machine: Apache Kafka's own performance tools (`kafka-tools`, the
 * broker's version, on the Kafka Streams peer's classpath) producing the workload's records to a
 * fresh topic with the benchmark's partitions, then consuming them with a fresh group. They share
 * no code with this project, and nothing does less per record than they do: what a client in
 * this process can reach is below them.
 *
 * - `ProducerPerformance`: the workload's values as payloads (`--payload-file`, one JSON document
 *   per line), `acks=all` and idempotence as every producer of the benchmark, as fast as it goes;
 *   its own records/s, which leave out the JVM's start.
 * - `ConsumerPerformance`: the same records; its `fetch.nMsg.sec`, which leaves out the group join.
 *
 * @example
 *   const limit = await brokerLimit({ bootstrap, classpath, values, partitions: 4, runId: 'x1' });
 *   // { produced: { perSecond: 190000, ... }, consumed: { perSecond: 700000, ... } }
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createTopics, deleteTopics } from '../../local-kafka/admin.ts';
import { PEER_DIR } from './kafka-streams-peer.ts';

const run = promisify(execFile);
const TOOL_TIMEOUT_MS = 5 * 60_000;

export interface ToolFigure {
  readonly records: number;
  readonly perSecond: number;
  readonly megabytesPerSecond: number;
}

export interface BrokerLimit {
  readonly produced: ToolFigure;
  readonly consumed: ToolFigure;
}

export async function brokerLimit(options: {
  readonly bootstrap: string;
  /** The Kafka Streams peer's classpath (`buildStreamsPeer`), which holds `kafka-tools`. */
  readonly classpath: string;
  /** The record values to produce, in order (the workload's). */
  readonly values: readonly Buffer[];
  readonly partitions: number;
  readonly runId: string;
}): Promise<BrokerLimit> {
  const topic = `bench.${options.runId}.perf`;
  const dir = mkdtempSync(join(tmpdir(), 'streamfold-perf-'));
  const payloads = join(dir, 'payloads.txt');
  writeFileSync(payloads, Buffer.concat(options.values.flatMap((value) => [value, Buffer.from('\n')])));
  await createTopics(options.bootstrap, { [topic]: options.partitions });
  const java = (main: string, args: readonly string[]) =>
    run(
      'java',
      [
        '-Xmx512m',
        `-Dlog4j2.configurationFile=${join(PEER_DIR, 'log4j2.properties')}`,
        '-cp',
        options.classpath,
        main,
        ...args,
      ],
      { timeout: TOOL_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 },
    );
  try {
    const records = options.values.length;
    const produced = await java('org.apache.kafka.tools.ProducerPerformance', [
      '--topic',
      topic,
      '--num-records',
      String(records),
      '--payload-file',
      payloads,
      '--throughput',
      '-1',
      '--producer-props',
      `bootstrap.servers=${options.bootstrap}`,
      'acks=all',
      'enable.idempotence=true',
    ]);
    const consumed = await java('org.apache.kafka.tools.ConsumerPerformance', [
      '--bootstrap-server',
      options.bootstrap,
      '--topic',
      topic,
      '--messages',
      String(records),
      '--timeout',
      '60000',
      '--group',
      `bench.${options.runId}.perf-reader`,
    ]);
    return { produced: producerFigure(produced.stdout), consumed: consumerFigure(consumed.stdout) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await deleteTopics(options.bootstrap, [topic]);
  }
}

/** ProducerPerformance's last line: `N records sent, R records/sec (M MB/sec), …`. */
export function producerFigure(stdout: string): ToolFigure {
  const match = /(\d+) records sent, ([\d.]+) records\/sec \(([\d.]+) MB\/sec\)/.exec(
    stdout.trim().split('\n').at(-1) ?? '',
  );
  if (!match) throw new Error(`ProducerPerformance printed no summary:\n${stdout.slice(-2000)}`);
  return { records: Number(match[1]), perSecond: Number(match[2]), megabytesPerSecond: Number(match[3]) };
}

/**
 * ConsumerPerformance's CSV line under its header: `fetch.nMsg.sec` and `fetch.MB.sec` (the
 * fetching alone, without the group join), and `data.consumed.in.nMsg`.
 */
export function consumerFigure(stdout: string): ToolFigure {
  const lines = stdout.trim().split('\n');
  const headerAt = lines.findIndex((line) => line.includes('fetch.nMsg.sec'));
  const header = lines[headerAt]?.split(',').map((h) => h.trim());
  const values = lines[headerAt + 1]?.split(',').map((v) => v.trim());
  if (!header || !values) throw new Error(`ConsumerPerformance printed no summary:\n${stdout.slice(-2000)}`);
  const field = (name: string) => Number(values[header.indexOf(name)]);
  return {
    records: field('data.consumed.in.nMsg'),
    perSecond: field('fetch.nMsg.sec'),
    megabytesPerSecond: field('fetch.MB.sec'),
  };
}
