/**
 * The Kafka-mode benchmark: `npm run bench:kafka [-- options]`, on a real Apache Kafka broker.
 *
 *   --quick                  small runs (a few minutes), for local checks
 *   --workloads=W1,W4        workloads (default W1,W4; `--workloads=` runs only the REST-to-broker part)
 *   --stores=memory,mongo    engine stores (default both; the raw pipe and the 2-hop echo always run)
 *   --streams=memory,rocksdb the Kafka Streams peer's stores, W1 and W4 (default both; `--streams=`
 *                            none); its outputs are checked equal to the engine's (memory)
 *   --no-broker-limit        skip Apache Kafka's own performance tools on each workload's records
 *   --rss-million            add W3 on MemoryStore: a population of 3,000 customers (123,000
 *                            records), then 1,000,000 child updates, for the peak RSS (state bounded
 *                            by the population, so what grows is the engine's own)
 *   --events=N               events per anchor and MemoryStore run (default 100000; quick 5000)
 *   --paced-events=N         events per paced run (default 60000, about 5 s at W1's half rate; quick 2000)
 *   --mongo-events=N         events per MongoStore run (default 1000; quick 300)
 *   --partitions=N           partitions of every topic (default 4)
 *   --repeat=N               interleaved runs of each target per figure, medians reported (default 3; quick 1)
 *   --seed=N                 generator seed (default 42)
 *   --no-latency             skip the paced runs (W1, or the first workload: engine and raw pipe at
 *                            half the engine's events/s)
 *   --no-rest                skip the REST-to-broker route against the bare produce loop
 *   --requests=N             requests per REST round (default 10000; quick 2000)
 *   --concurrency=N          requests open at a time, and produces awaited at a time (default 64)
 *   --results-dir=DIR        where the results go (default bench/results)
 *
 * The broker is `KAFKA_BROKERS` when set (its CPU is then not measured), else one local Apache
 * Kafka node started for the run (`local-kafka/`). Every run is a process of its own on fresh
 * topics (`bench/harness/kafka-run.ts`). The engine is compared with anchors of the same run that
 * share none of its code: the raw node-rdkafka pipe (`harness/kafka-raw-pipe.ts`), the Kafka
 * Streams peer (`peers/kafka-streams/`) and the broker's own tools (`harness/kafka-perf-tools.ts`). Prints the tables in Markdown and writes
 * `bench/results/kafka-<timestamp>.json` and `bench/results/kafka-latest.md`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { type LocalKafka, startLocalKafka } from '../local-kafka/cluster.ts';
import { list, positive } from './harness/cli.ts';
import { brokerLimit } from './harness/kafka-perf-tools.ts';
import type { KafkaRunResult, KafkaRunSpec, KafkaTargetName } from './harness/kafka-run.ts';
import { buildStreamsPeer } from './harness/kafka-streams-peer.ts';
import { compareFinalStates, formatComparison, readFinalState } from './harness/output-equality.ts';
import { type RestRound, restRound } from './harness/rest-bench.ts';
import { runChild } from './harness/run-child.ts';
import {
  type BrokerLimitRow,
  formatBrokerLimitTable,
  formatKafkaTable,
  formatRestTable,
  type KafkaRow,
  type RestRow,
} from './report/kafka-table.ts';
import { kafkaTargetVerdicts } from './report/kafka-targets.ts';
import { medianBy, rangeOf } from './report/median.ts';
import { WORKLOADS, type WorkloadId } from './workloads/index.ts';

const here = dirname(fileURLToPath(import.meta.url));
const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    workloads: { type: 'string', default: 'W1,W4' },
    stores: { type: 'string', default: 'memory,mongo' },
    streams: { type: 'string', default: 'memory,rocksdb' },
    events: { type: 'string' },
    'mongo-events': { type: 'string' },
    'paced-events': { type: 'string' },
    partitions: { type: 'string' },
    repeat: { type: 'string' },
    seed: { type: 'string', default: '42' },
    'no-latency': { type: 'boolean', default: false },
    'no-rest': { type: 'boolean', default: false },
    'no-broker-limit': { type: 'boolean', default: false },
    'rss-million': { type: 'boolean', default: false },
    requests: { type: 'string' },
    concurrency: { type: 'string' },
    'results-dir': { type: 'string' },
  },
});

const quick = values.quick;
const workloads = list(values.workloads, Object.keys(WORKLOADS)) as WorkloadId[];
const stores = list(values.stores, ['memory', 'mongo']) as ('memory' | 'mongo')[];
const streamsStores = list(values.streams, ['memory', 'rocksdb']) as ('memory' | 'rocksdb')[];
const events = positive(values.events, quick ? 5_000 : 100_000, '--events');
const pacedEvents = positive(values['paced-events'], quick ? 2_000 : 60_000, '--paced-events');
const mongoEvents = positive(values['mongo-events'], quick ? 300 : 1_000, '--mongo-events');
const partitions = positive(values.partitions, 4, '--partitions');
const repeat = positive(values.repeat, quick ? 1 : 3, '--repeat');
const seed = positive(values.seed, 42, '--seed');
const requests = positive(values.requests, quick ? 2_000 : 10_000, '--requests');
const concurrency = positive(values.concurrency, 64, '--concurrency');

const started = new Date();
const stamp = started.toISOString().replace(/[:.]/g, '-');
/** Short (an engine's config id, named after it, has at most 16 characters) and unique per run. */
const runPrefix = started.getTime().toString(36);
const local: LocalKafka | null = process.env.KAFKA_BROKERS ? null : await startLocalKafka({ nodes: 1 });
const bootstrap = process.env.KAFKA_BROKERS ?? (local as LocalKafka).bootstrap;
const brokerPid = local?.nodes[0]?.pid() ?? null;
const loads: { at: string; loadavg: number[] }[] = [];
const noteLoad = (at: string) => loads.push({ at, loadavg: loadavg().map((l) => Math.round(l * 100) / 100) });
noteLoad('start');
process.stderr.write(
  `bench: Kafka ${local ? `${local.kafkaVersion}, local node` : 'KAFKA_BROKERS'} at ${bootstrap}; load ${loads[0]?.loadavg.join(' ')}\n`,
);

const failures: string[] = [];
const allRuns: KafkaRunResult[] = [];
let runNumber = 0;

async function kafkaRun(
  label: string,
  spec: Omit<KafkaRunSpec, 'bootstrap' | 'brokerPid' | 'runId' | 'seed' | 'partitions'>,
): Promise<KafkaRunResult | null> {
  process.stderr.write(`bench: ${label} ...\n`);
  const full: KafkaRunSpec = {
    ...spec,
    seed,
    partitions,
    bootstrap,
    brokerPid,
    runId: `${runPrefix}r${++runNumber}`,
  };
  try {
    const result = await runChild<KafkaRunSpec, KafkaRunResult>(
      join(here, 'harness/kafka-run.ts'),
      full,
      Math.max(10 * 60_000, spec.events * 20),
    );
    allRuns.push(result);
    return result;
  } catch (error) {
    failures.push(`${label}: ${(error as Error).message}`);
    process.stderr.write(`bench: ${label} failed: ${(error as Error).message}\n`);
    return null;
  }
}

/** A row of the runs' median by events/s (or by p99 for paced runs), or nothing if all failed. */
function row(
  label: string,
  runs: readonly (KafkaRunResult | null)[],
  anchors?: KafkaRow['anchors'],
): KafkaRow[] {
  const done = runs.filter((r): r is KafkaRunResult => r !== null);
  const paced = done.some((r) => r.spec.rate);
  const median = medianBy(done, paced ? (r) => -(r.latencyMs?.p99 ?? Infinity) : (r) => r.inputPerSecond);
  if (!median) return [];
  return [
    {
      label: done.length > 1 ? `${label} (median of ${done.length})` : label,
      result: median,
      ...rangeOf(done.map((r) => r.inputPerSecond)),
      ...(anchors ? { anchors } : {}),
    },
  ];
}

// The Kafka Streams peer (W1 and W4): built once here, its runs, and its outputs' final state
// against the engine's.
let peerClasspath: string | null = null;
if (
  (streamsStores.length > 0 && workloads.some((id) => id === 'W1' || id === 'W4')) ||
  (!values['no-broker-limit'] && workloads.length > 0)
) {
  try {
    const built = await buildStreamsPeer();
    peerClasspath = built.classpath;
    process.stderr.write(
      `bench: Kafka Streams peer ${built.cached ? 'already built' : 'built'} (${built.seconds.toFixed(1)} s)\n`,
    );
  } catch (error) {
    failures.push(`building the Kafka Streams peer: ${(error as Error).message}`);
    streamsStores.length = 0;
  }
}
const statesDir = mkdtempSync(join(tmpdir(), 'streamfold-bench-states-'));
const stateFile = (name: string) => join(statesDir, `${name}.json`);
const equality: string[] = [];
function streamsPeerRows(
  id: WorkloadId,
  runs: ReadonlyMap<string, (KafkaRunResult | null)[]>,
  raw: KafkaRunResult | null,
): KafkaRow[] {
  const engineRun = allRuns.find((r) => r.spec.finalStateFile === stateFile(`${id}-engine`));
  for (const run of [...runs.values()].flat()) {
    if (!run?.spec.finalStateFile) continue;
    const label = `${id} Kafka Streams (${run.spec.target.slice('streams-'.length)}) vs the engine (memory)`;
    if (!engineRun) {
      equality.push(`${label}: not checked (no engine run on MemoryStore)`);
      continue;
    }
    const check = compareFinalStates(
      readFinalState(stateFile(`${id}-engine`)),
      readFinalState(run.spec.finalStateFile),
      ['engine', 'Kafka Streams'],
    );
    equality.push(`${label}: ${formatComparison(check)}`);
    if (!check.equal) failures.push(`${label}: outputs differ`);
  }
  return [...runs].flatMap(([store, done]) => row(`${id} Kafka Streams (${store})`, done, { raw }));
}

const rows: KafkaRow[] = [];
const limits: BrokerLimitRow[] = [];
const engineMedians = new Map<string, KafkaRunResult>();
const anchorsOf = new Map<string, NonNullable<KafkaRow['anchors']>>();
for (const id of workloads) {
  // The targets' runs alternate, so that a change of the machine's load hits all alike.
  const raws: (KafkaRunResult | null)[] = [];
  const echoes: (KafkaRunResult | null)[] = [];
  const memory: (KafkaRunResult | null)[] = [];
  const peer = new Map(
    (id === 'W1' || id === 'W4' ? streamsStores : []).map((s) => [s, [] as (KafkaRunResult | null)[]]),
  );
  for (let i = 0; i < repeat; i++) {
    const of = repeat > 1 ? ` (${i + 1}/${repeat})` : '';
    raws.push(await kafkaRun(`${id} raw pipe${of}`, { workload: id, target: 'raw', events }));
    echoes.push(await kafkaRun(`${id} 2-hop echo${of}`, { workload: id, target: 'echo', events }));
    if (stores.includes('memory'))
      memory.push(
        await kafkaRun(`${id} memory${of}`, {
          workload: id,
          target: 'memory',
          events,
          ...(i === 0 && peer.size > 0 ? { finalStateFile: stateFile(`${id}-engine`) } : {}),
        }),
      );
    for (const [store, runs] of peer)
      runs.push(
        await kafkaRun(`${id} Kafka Streams (${store})${of}`, {
          workload: id,
          target: `streams-${store}`,
          events,
          finalStateFile: stateFile(`${id}-streams-${store}-${i}`),
        }),
      );
  }
  const [rawRow] = row(`${id} raw pipe (node-rdkafka)`, raws);
  const raw = rawRow?.result ?? null;
  if (rawRow) rows.push(rawRow);
  rows.push(...row(`${id} 2-hop echo (our operators)`, echoes, { raw }));
  const peerRows = streamsPeerRows(id, peer, raw);
  const streamsOf = (store: string) =>
    peerRows.find((r) => r.result.spec.target === `streams-${store}`)?.result ?? null;
  const anchors = { raw, streamsMemory: streamsOf('memory'), streamsRocksdb: streamsOf('rocksdb') };
  anchorsOf.set(id, anchors);
  const [memoryRow] = row(`${id} memory`, memory, anchors);
  if (memoryRow) {
    rows.push(memoryRow);
    engineMedians.set(id, memoryRow.result);
  }
  rows.push(...peerRows);
  if (stores.includes('mongo')) {
    // The stand-in's figures are round-trip counts, the same on every run: one run.
    rows.push(
      ...row(`${id} mongo`, [
        await kafkaRun(`${id} mongo`, { workload: id, target: 'mongo', events: mongoEvents }),
      ]),
    );
  }
  if (peerClasspath && !values['no-broker-limit']) limits.push(...(await brokerLimitRows(id, peerClasspath)));
  noteLoad(id);
}

/** Apache Kafka's producer and consumer performance tools on the workload's records (one run each). */
async function brokerLimitRows(id: WorkloadId, classpath: string): Promise<BrokerLimitRow[]> {
  process.stderr.write(`bench: ${id} broker limit (Apache Kafka's performance tools) ...\n`);
  try {
    const recordValues = [...WORKLOADS[id].stream(events, seed, 0)].map((e) => e.record.value as Buffer);
    const limit = await brokerLimit({
      bootstrap,
      classpath,
      values: recordValues,
      partitions,
      runId: `${runPrefix}t${id}`,
    });
    return [
      { label: `${id} ProducerPerformance (acks=all, idempotent)`, ...limit.produced },
      { label: `${id} ConsumerPerformance (fetch)`, ...limit.consumed },
    ];
  } catch (error) {
    failures.push(`${id} broker limit: ${(error as Error).message}`);
    return [];
  }
}

/** W3's population for the million-event run: 3,000 customers, 10 orders each, 3 items per order. */
const RSS_SCALE = 3_000;
let rssMillion: number | null = null;
if (values['rss-million']) {
  const run = await kafkaRun('W3 memory, 1,000,000 events after a population of 3,000 customers', {
    workload: 'W3',
    target: 'memory',
    events: 1_000_000,
    scale: RSS_SCALE,
  });
  rows.push(...row('W3 memory, 1M updates of a 123k-record population', [run]));
  rssMillion = run?.peakRssMb ?? null;
  noteLoad('rss-million');
}

const pacedId = workloads.includes('W1') ? 'W1' : workloads[0];
let pacedEngine: KafkaRunResult | undefined;
const pacedOn = pacedId ? engineMedians.get(pacedId) : undefined;
if (pacedId && pacedOn && !values['no-latency']) {
  const rate = Math.max(1, Math.round(pacedOn.inputPerSecond / 2));
  const paced = (target: KafkaTargetName) =>
    kafkaRun(`${pacedId} ${target} @${rate}/s`, { workload: pacedId, target, events: pacedEvents, rate });
  const raws: (KafkaRunResult | null)[] = [];
  const memory: (KafkaRunResult | null)[] = [];
  for (let i = 0; i < repeat; i++) {
    raws.push(await paced('raw'));
    memory.push(await paced('memory'));
  }
  const [rawRow] = row(`${pacedId} raw pipe @${rate}/s`, raws);
  const [pacedRow] = row(`${pacedId} memory @${rate}/s`, memory, { raw: rawRow?.result ?? null });
  rows.push(...(rawRow ? [rawRow] : []), ...(pacedRow ? [pacedRow] : []));
  if (pacedRow) pacedEngine = pacedRow.result;
  noteLoad('paced');
}

const rounds: RestRound[] = [];
if (!values['no-rest']) {
  for (let i = 0; i < repeat; i++) {
    process.stderr.write(`bench: REST-to-broker${repeat > 1 ? ` (${i + 1}/${repeat})` : ''} ...\n`);
    try {
      rounds.push(
        await restRound(bootstrap, { requests, concurrency, partitions, runId: `${runPrefix}h${i}` }),
      );
    } catch (error) {
      failures.push(`REST-to-broker: ${(error as Error).message}`);
    }
  }
  noteLoad('rest');
}
const restRows: RestRow[] = [];
const bare = medianBy(
  rounds.map((r) => r.produce),
  (r) => r.perSecond,
);
const rest = medianBy(
  rounds.map((r) => r.rest),
  (r) => r.perSecond,
);
const of = rounds.length > 1 ? ` (median of ${rounds.length})` : '';
if (rest)
  restRows.push({
    label: `HTTP POST -> rest2broker route -> produce, acknowledged${of}`,
    result: rest,
    ...rangeOf(rounds.map((r) => r.rest.perSecond)),
    bare: bare?.perSecond ?? null,
    serviceCpuMicrosPerRequest: rounds.find((r) => r.rest === rest)?.serviceCpuMicrosPerRequest ?? null,
  });
if (bare)
  restRows.push({
    label: `bare produce loop, awaiting delivery reports${of}`,
    result: bare,
    ...rangeOf(rounds.map((r) => r.produce.perSecond)),
  });

await local?.stop();
rmSync(statesDir, { recursive: true, force: true });

const header = `Kafka ${local ? local.kafkaVersion : `at ${bootstrap}`}, ${partitions} partitions per topic, acks=all, idempotent producers; ${cpus().length} cores; load average ${loads.map((l) => `${l.at} ${l.loadavg.join('/')}`).join(', ')}`;
const markdown = [
  header,
  '',
  ...(rows.length > 0 ? [formatKafkaTable(rows)] : []),
  ...(limits.length > 0 ? ['', formatBrokerLimitTable(limits)] : []),
  ...(engineMedians.size > 0
    ? [
        '',
        '```',
        'targets:',
        ...kafkaTargetVerdicts({
          workloads: new Map(
            [...engineMedians].map(([id, engine]) => [id, { engine, anchors: anchorsOf.get(id) ?? {} }]),
          ),
          ...(pacedId && pacedEngine ? { paced: { workload: pacedId, result: pacedEngine } } : {}),
          ...(values['rss-million'] ? { rssMillionMb: rssMillion } : {}),
        }),
        '```',
      ]
    : []),
  ...(equality.length > 0
    ? [
        '',
        'Output equality (final state per head key, children as multisets):',
        '',
        ...equality.map((e) => `- ${e}`),
      ]
    : []),
  ...(restRows.length > 0 ? ['', formatRestTable(restRows)] : []),
].join('\n');
console.log(markdown);
const resultsDir = values['results-dir'] ?? join(here, 'results');
mkdirSync(resultsDir, { recursive: true });
const file = join(resultsDir, `kafka-${stamp}.json`);
writeFileSync(
  file,
  `${JSON.stringify({ startedAt: started.toISOString(), quick, bootstrap, kafkaVersion: local?.kafkaVersion ?? null, loads, runs: allRuns, equality, rest: rounds, failures }, null, 2)}\n`,
);
writeFileSync(join(resultsDir, 'kafka-latest.md'), `${markdown}\n`);
console.log(`\nresults: ${file}`);
if (failures.length > 0) {
  console.error(`bench: ${failures.length} run(s) failed:\n${failures.join('\n')}`);
  process.exitCode = 1;
}
