/**
 * One Kafka-mode run in this process: `node --import tsx bench/harness/kafka-run.ts '<spec JSON>'`
 * prints the KafkaRunResult as its last stdout line (`bench/kafka.ts` starts one per run).
 *
 * The run's fresh topics are created, the target (the engine, a pipe or the Kafka Streams peer)
 * joins its groups paused, and then either the whole input is in the input topics before it
 * starts (throughput), or another process produces it at `rate` events/s once it started
 * (latency, `paced-feed.ts`). Measured from the start until everything is consumed and committed:
 * events/s up to the last output's broker timestamp, the target's CPU and the broker's (its JVM's
 * `/proc` times, when it is a local one) per event; a latency runs from an input's broker append
 * to the append of the first output that answers it.
 */

import { fileURLToPath } from 'node:url';
import { createEngineMetrics } from '../../engine/metrics/index.ts';
import { MemoryStore } from '../../engine/store/memory-store.ts';
import type { Store } from '../../engine/store/types.ts';
import { deleteTopics } from '../../local-kafka/admin.ts';
import { createKafkaBroker } from '../../operators/broker/kafka/index.ts';
import type { Broker, ConsumedMessage } from '../../operators/broker/types.ts';
import { WORKLOADS, type WorkloadId } from '../workloads/index.ts';
import { stampOf, total } from './engine-run.ts';
import { type InputFeedSpec, SEQ_HEADER } from './input-feed.ts';
import { startKafkaEcho } from './kafka-echo.ts';
import { startKafkaEngine } from './kafka-engine.ts';
import { readOutput } from './kafka-output.ts';
import { startKafkaRawPipe } from './kafka-raw-pipe.ts';
import { startStreamsPeer } from './kafka-streams-peer.ts';
import { type KafkaTarget, type RunTopics, runTopics, until } from './kafka-target.ts';
import { createRunTopics } from './kafka-topics.ts';
import { inputLatencies, type LatencySummary, type OutputStamp, percentile } from './latency.ts';
import { measureLoad } from './load.ts';
import { measureWindow } from './measure-window.ts';
import { FinalStateCollector, writeFinalState } from './output-equality.ts';
import { processCpuSeconds, processPeakRssMb } from './proc-cpu.ts';
import { runAsChild, runChild } from './run-child.ts';

const INPUT_FEED = fileURLToPath(new URL('./input-feed.ts', import.meta.url));

export type KafkaTargetName = 'raw' | 'echo' | 'memory' | 'mongo' | 'streams-memory' | 'streams-rocksdb';

/** Targets that pass each input through both hops as it is (their latency is per echoed input). */
const PIPES: ReadonlySet<KafkaTargetName> = new Set(['raw', 'echo']);

export interface KafkaRunSpec {
  readonly workload: WorkloadId;
  readonly target: KafkaTargetName;
  readonly events: number;
  readonly seed: number;
  readonly partitions: number;
  readonly bootstrap: string;
  /** The broker's JVM, for its CPU time; null when it is not on this machine (KAFKA_BROKERS). */
  readonly brokerPid: number | null;
  /** Unique per run: names its topics and consumer groups. */
  readonly runId: string;
  /** The workload's scale (W3: customers in its population, produced before the stream); default 0. */
  readonly scale?: number;
  /** Paced production in events/s while the target runs (latency); absent: all produced before. */
  readonly rate?: number;
  /** Where to write the output's final state per head key, for the equality check (`output-equality.ts`). */
  readonly finalStateFile?: string;
}

export interface KafkaRunResult {
  readonly spec: KafkaRunSpec;
  readonly seconds: number;
  readonly inputPerSecond: number;
  readonly outputMessages: number;
  readonly outputBytesPerEvent: number;
  /** The target's process (engine or echo: this one; the Kafka Streams peer: its JVM) per input event: user + system CPU, µs. */
  readonly cpuMicrosPerEvent: number;
  /** The broker's JVM per input event, µs; null when not measurable. */
  readonly brokerCpuMicrosPerEvent: number | null;
  /** Paced runs: from an input's production to the first output of its head (echo: its echo). */
  readonly latencyMs: LatencySummary | null;
  /** MongoStore runs on the stand-in: its process's CPU per input event, µs (who limits the run). */
  readonly storeCpuMicrosPerEvent?: number | null;
  /** Engine runs: store requests per input event and internal updates per head recompute. */
  readonly roundTripsPerEvent: number | null;
  readonly compression: number | null;
  readonly peakRssMb: number;
  readonly standIn?: boolean;
}

const IDLE_POLL_MS = 250;

export async function runKafka(spec: KafkaRunSpec): Promise<KafkaRunResult> {
  const workload = WORKLOADS[spec.workload];
  const topics = runTopics(`bench.${spec.runId}`, workload.graph.nodes);
  const all = [...topics.inputs.values(), topics.internal, topics.output];
  await createRunTopics(spec.bootstrap, { [topics.internal]: spec.partitions });
  // The broker stamps each input and output as it appends it: a latency runs from the input's
  // append to its answer's (not from the source's produce call), and a Kafka Streams record
  // carries the timestamp of the input record behind it, not the time it was produced.
  await createRunTopics(
    spec.bootstrap,
    Object.fromEntries([...topics.inputs.values(), topics.output].map((t) => [t, spec.partitions])),
    { 'message.timestamp.type': 'LogAppendTime' },
  );
  const broker = createKafkaBroker({ properties: { 'bootstrap.servers': spec.bootstrap } });
  const input: InputFeedSpec = {
    bootstrap: spec.bootstrap,
    workload: spec.workload,
    events: spec.events,
    seed: spec.seed,
    ...(spec.scale ? { scale: spec.scale } : {}),
    ...(spec.rate ? { rate: spec.rate } : {}),
    topics: Object.fromEntries(topics.inputs),
  };
  const feedTimeoutMs = Math.max(120_000, spec.events * (spec.rate ? 3000 / spec.rate : 2));
  if (!spec.rate) await runChild(INPUT_FEED, input, feedTimeoutMs);

  // Loaded only for MongoStore runs: the driver's BSON module alone holds a 17 MB buffer, which
  // would count in every other run's peak RSS.
  const mongoModules =
    spec.target === 'mongo'
      ? await Promise.all([
          import('../../test/support/mongo.ts'),
          import('../../engine/store/mongo/mongo-store.ts'),
        ])
      : null;
  const mongo = mongoModules ? await mongoModules[0].startMongo() : null;
  const metrics = createEngineMetrics({ defaultMetrics: false });
  let store: Store | undefined;
  const target: KafkaTarget =
    spec.target === 'raw'
      ? await startKafkaRawPipe(spec.bootstrap, topics, spec.runId)
      : spec.target === 'echo'
        ? await startKafkaEcho(broker, topics, spec.runId)
        : spec.target === 'streams-memory' || spec.target === 'streams-rocksdb'
          ? await startStreamsPeer({
              bootstrap: spec.bootstrap,
              workload: spec.workload as 'W1' | 'W4',
              store: spec.target === 'streams-memory' ? 'memory' : 'rocksdb',
              topics,
              applicationId: `bench.${spec.runId}.streams`,
            })
          : await startKafkaEngine({
              broker,
              bootstrap: spec.bootstrap,
              workload,
              topics,
              runId: spec.runId,
              metrics,
              store: (layout) => {
                store = mongo
                  ? new (mongoModules as NonNullable<typeof mongoModules>)[1].MongoStore({
                      ...layout,
                      url: mongo.url,
                      database: mongo.database,
                    })
                  : new MemoryStore(layout);
                return store;
              },
            });
  try {
    await until('every consumer is assigned', () => target.ready(), target, 60_000);
    const brokerCpu = () => (spec.brokerPid ? processCpuSeconds(spec.brokerPid) : 0);
    const targetCpu = () => (target.pid ? processCpuSeconds(target.pid) : 0);
    const roundTrips = () => store?.counters.roundTrips ?? 0;
    const storeCpu = () => (mongo?.pid ? processCpuSeconds(mongo.pid) : 0);
    measureWindow.emit('start');
    // The engine and the pipes start in this tick; the Kafka Streams peer once its instance runs.
    const starting = target.start();
    if (starting) await Promise.race([starting, target.failed]);
    const before = { broker: brokerCpu(), target: targetCpu(), store: storeCpu(), roundTrips: roundTrips() };
    const loadSince = measureLoad();
    const started = Date.now();
    if (spec.rate) await Promise.race([runChild(INPUT_FEED, input, feedTimeoutMs), target.failed]);
    await untilIdle(target, spec.events);
    measureWindow.emit('end');
    const load = loadSince();
    const cpuSeconds = target.pid ? targetCpu() - before.target : load.cpuSeconds;
    const peakRssMb = target.pid ? processPeakRssMb(target.pid) : process.resourceUsage().maxRSS / 1024;
    const brokerSeconds = brokerCpu() - before.broker;
    const storeSeconds = storeCpu() - before.store;
    const output = await outputFigures(broker, topics, spec);
    const recomputes = await total(metrics.internalOut);
    return {
      spec,
      seconds: Math.max(1, output.last - started) / 1000,
      inputPerSecond: (spec.events * 1000) / Math.max(1, output.last - started),
      outputMessages: output.count,
      outputBytesPerEvent: output.bytes / spec.events,
      cpuMicrosPerEvent: (cpuSeconds * 1e6) / spec.events,
      brokerCpuMicrosPerEvent: spec.brokerPid ? (brokerSeconds * 1e6) / spec.events : null,
      latencyMs: output.latency,
      roundTripsPerEvent: store ? (roundTrips() - before.roundTrips) / spec.events : null,
      storeCpuMicrosPerEvent: mongo?.pid ? (storeSeconds * 1e6) / spec.events : null,
      compression: recomputes > 0 ? (await total(metrics.internalIn)) / recomputes : null,
      peakRssMb,
      ...(mongo ? { standIn: mongo.standIn } : {}),
    };
  } finally {
    await target.stop();
    await mongo?.stop();
    await deleteTopics(spec.bootstrap, all);
  }
}

/**
 * Idle on two consecutive checks: the lags of the consumers are read one after another, so one
 * check can see the last hop drained just before the hop ahead of it produced its last records.
 */
async function untilIdle(target: KafkaTarget, events: number): Promise<void> {
  let streak = 0;
  await until(
    'everything is consumed and committed',
    async () => {
      streak = (await target.idle()) ? streak + 1 : 0;
      return streak >= 2;
    },
    target,
    // At no less than 100 events/s, and never under 2 minutes.
    Math.max(120_000, events * 10),
    // Each check asks the broker for every partition's committed offset and watermarks: seldom
    // enough to cost the measured processes little (the events/s end at the last output anyway).
    IDLE_POLL_MS,
  );
}

/** The output topic's messages, bytes and last broker timestamp, and in paced runs the latencies. */
async function outputFigures(broker: Broker, topics: RunTopics, spec: KafkaRunSpec) {
  let last = 0;
  let bytes = 0;
  const stamps: OutputStamp[] = [];
  /** Paced runs: each input's broker append time, by its index in the stream. */
  const appended = new Float64Array(spec.rate ? spec.events : 0);
  if (spec.rate)
    await readOutput(broker, [...topics.inputs.values()], `bench.inputs.${spec.runId}`, (m) => {
      const seq = seqOf(m);
      if (seq !== null) appended[seq] = m.timestamp ?? 0;
    });
  const echoed: number[] = [];
  const finalState = spec.finalStateFile ? new FinalStateCollector() : null;
  const count = await readOutput(
    broker,
    topics.output,
    `bench.reader.${spec.runId}`,
    (m: ConsumedMessage) => {
      last = Math.max(last, m.timestamp ?? 0);
      bytes += m.value?.length ?? 0;
      finalState?.add(m);
      if (!spec.rate) return;
      if (PIPES.has(spec.target)) {
        const seq = seqOf(m);
        if (seq !== null) echoed.push((m.timestamp ?? 0) - (appended[seq] as number));
      } else {
        const stamp = stampOf(m);
        if (stamp) stamps.push(stamp);
      }
    },
  );
  if (spec.finalStateFile && finalState) writeFinalState(spec.finalStateFile, finalState.state);
  const latency = !spec.rate
    ? null
    : PIPES.has(spec.target)
      ? echoLatencies(echoed, spec.events)
      : inputLatencies(
          appended,
          Array.from(WORKLOADS[spec.workload].stream(spec.events, spec.seed, spec.scale ?? 0), (e) => e.head),
          stamps,
        );
  return { count, bytes, last, latency };
}

/** The input's index in the stream, from the header the paced feed gives it (pipes pass it on). */
function seqOf(message: ConsumedMessage): number | null {
  const seq = message.headers?.find((h) => SEQ_HEADER in h)?.[SEQ_HEADER];
  return seq === undefined ? null : Number(seq.toString());
}

function echoLatencies(samples: number[], inputs: number): LatencySummary {
  samples.sort((a, b) => a - b);
  return {
    samples: samples.length,
    unanswered: inputs - samples.length,
    p50: percentile(samples, 0.5),
    p99: percentile(samples, 0.99),
    max: samples.at(-1) ?? null,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) runAsChild(runKafka);
