/**
 * Kafka for tests, as `backends.ts` chooses: the cluster named by `KAFKA_BROKERS`, a Redpanda
 * container, or the local Apache Kafka (the run's shared broker, or a broker or cluster of the
 * test's own), each with freshly created uniquely named topics; else, as the last resort, a
 * Mokapi process (a Kafka protocol emulator, see design/test-infra.md) on free loopback ports.
 *
 * On a real broker clients get no property but `bootstrap.servers`: what a user's configuration
 * would start from (unless `STREAMFOLD_TEST_KAFKA_WATCHDOG=off`, below). Only Mokapi's clients get
 * the accommodations its defects need.
 *
 * @example
 *   const kafka = await startKafka({ topics: { orders: 2 } });
 *   const broker = createKafkaBroker({ properties: kafka.properties });
 *   // ... produce to kafka.topic('orders') ...
 *   await kafka.stop();
 *
 *   // A broker the test may restart, or a three-node cluster whose nodes it may kill:
 *   const own = await startKafka({ topics: { orders: 3 }, own: { nodes: 3 } });
 *   await own.cluster!.node(1).kill();
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { clusterMetadata, createTopics, deleteTopics } from '../../local-kafka/admin.ts';
import { type LocalKafka, startLocalKafka } from '../../local-kafka/cluster.ts';
import { backends } from './backends.ts';
import { freePorts, spawnLogged, stopProcess } from './process.ts';
import { type StandInLog, standInLog, TAIL_LINES } from './stand-in-log.ts';

export interface KafkaFixture {
  /** `host:port[,host:port]` of the cluster. */
  readonly brokers: string;
  /** `bootstrap.servers`, plus on Mokapi the client properties its defects need (test-infra.md). */
  readonly properties: Record<string, string>;
  /** The actual topic name for a name given to `startKafka` (a real cluster gets a unique suffix per run). */
  topic(name: string): string;
  /** The test's own local cluster (`own`), whose nodes it may stop, kill and start again. */
  readonly cluster?: LocalKafka;
  /**
   * A broker of the test's own only (`own` on the local Apache Kafka, or Mokapi): stops every node
   * and starts it again on the same ports. Apache Kafka keeps its data and producer state; Mokapi
   * forgets everything, producer ids included (producers then get INVALID_PRODUCER_ID_MAPPING).
   */
  restart(): Promise<void>;
  /**
   * The known stand-in defect behind a failure, recognised from Mokapi's log (or from Mokapi's own
   * error answer quoted in `error`, for the one it does not log), else null. Always null on a
   * real broker: there a failure is the test's.
   */
  defect(error: unknown): string | null;
  stop(): Promise<void>;
}

export interface StartKafkaOptions {
  /** Topic name → partition count. */
  readonly topics: Record<string, number>;
  /**
   * A broker (or three-node cluster) of the test's own instead of the run's shared one, for tests
   * that restart or kill brokers. Local Apache Kafka only; on Mokapi every file has its own anyway.
   */
  readonly own?: { readonly nodes: 1 | 3 };
}

/**
 * Mokapi now and then garbles a connection; with librdkafka defaults a client then stalls for 60 s.
 * These make it recover within seconds (measured, design/test-infra.md).
 */
const MOKAPI_RESILIENT_PROPERTIES = {
  'socket.timeout.ms': '3000',
  'reconnect.backoff.max.ms': '500',
  'max.in.flight.requests.per.connection': '1',
};

/**
 * Mokapi only: one record per produce batch. Mokapi now and then rejects a multi-record batch
 * of an idempotent producer as out of sequence, which fails librdkafka's producer fatally.
 * Measured on the REST-to-Kafka concurrency test (1000 parallel records): 16 of 21 attempts hit
 * it with librdkafka's batching, 0 of 8 with one record per batch. Consumers ignore the property.
 */
const MOKAPI_CLIENT_PROPERTIES = { ...MOKAPI_RESILIENT_PROPERTIES, 'batch.num.messages': '1' };

const MOKAPI_BIN = resolve('node_modules/@go-mokapi/linux-x64/bin/mokapi');
/** Mokapi starts in 1-2 s on an idle machine; the bound holds with both cores busy. */
const READY_TIMEOUT_MS = 60_000;

/**
 * Mokapi 0.52 answers the metadata request with a malformed response ("bad message format") for
 * some topic sets, deterministically: measured here, 3 or 5 topics of 1 partition and 6 topics of
 * 2 fail, while 1-2 topics of 1 and 5 topics of 2 work. Tests declare sets that work; readiness
 * fails after 30 s with that message otherwise.
 */
export async function startKafka(options: StartKafkaOptions): Promise<KafkaFixture> {
  const backend = (await backends()).kafka;
  if (options.own && backend.kind !== 'local' && backend.kind !== 'stand-in')
    throw new Error(`a broker of the test's own needs the local Apache Kafka, not ${backend.kind} Kafka`);
  if (backend.kind === 'external') return useCluster(backend.address, options.topics);
  if (backend.kind === 'container') return startRedpanda(backend.image, options.topics);
  if (backend.kind === 'stand-in') return startMokapi(options.topics);
  if (options.own) return startOwnCluster(options.own.nodes, options.topics);
  return useCluster(backend.address ?? (await processBroker()).bootstrap, options.topics);
}

/** Whether a test may have a broker of its own to restart or kill (`own`): local Apache Kafka or Mokapi. */
export async function kafkaRestartable(): Promise<boolean> {
  const kind = (await backends()).kafka.kind;
  return kind === 'local' || kind === 'stand-in';
}

/** Whether the tests run on a real Kafka (not on Mokapi). */
export async function realKafka(): Promise<boolean> {
  return (await backends()).kafka.kind !== 'stand-in';
}

let ownBroker: Promise<LocalKafka> | undefined;

/** A file run outside the runner starts one local broker for all its tests, stopped when it exits. */
function processBroker(): Promise<LocalKafka> {
  ownBroker ??= startLocalKafka({ logFile: () => standInLog('kafka').path }).then((broker) => {
    // Its nodes are killed at exit (local-kafka/cluster.ts); their data goes with them.
    process.once('exit', () => rmSync(broker.dataDir, { recursive: true, force: true }));
    return broker;
  });
  return ownBroker;
}

async function startOwnCluster(nodes: 1 | 3, topics: Record<string, number>): Promise<KafkaFixture> {
  const cluster = await startLocalKafka({ nodes, logFile: (id) => standInLog(`kafka-node-${id}`).path });
  try {
    const fixture = await useCluster(cluster.bootstrap, topics);
    return {
      ...fixture,
      cluster,
      restart: async () => {
        await Promise.all(cluster.nodes.map((node) => node.stop()));
        await Promise.all(cluster.nodes.map((node) => node.start()));
      },
      stop: () => cluster.stop(),
    };
  } catch (error) {
    await cluster.stop();
    throw error;
  }
}

/** A Redpanda container (testcontainers), its log streamed to the stand-in log folder. */
async function startRedpanda(image: string, topics: Record<string, number>): Promise<KafkaFixture> {
  const { RedpandaContainer } = await import('@testcontainers/redpanda');
  const container = await new RedpandaContainer(image).start();
  (await container.logs()).pipe(createWriteStream(standInLog('redpanda').path));
  try {
    const cluster = await useCluster(container.getBootstrapServers(), topics);
    return {
      ...cluster,
      stop: async () => {
        await cluster.stop();
        await container.stop();
      },
    };
  } catch (error) {
    await container.stop();
    throw error;
  }
}

async function startMokapi(topics: Record<string, number>): Promise<KafkaFixture> {
  const [kafkaPort, apiPort, healthPort, mcpPort] = await freePorts(4);
  const brokers = `127.0.0.1:${kafkaPort}`;
  const dir = mkdtempSync(join(tmpdir(), 'streamfold-mokapi-'));
  writeFileSync(join(dir, 'asyncapi.yaml'), asyncApiDocument(brokers, topics));
  const args = [
    '--api-port',
    String(apiPort),
    '--health-port',
    String(healthPort),
    '--mcp-server-port',
    String(mcpPort),
    // Every Mokapi shares one search index folder otherwise, and two at once corrupt it.
    '--api-search-enabled=false',
    '--log-level',
    'info',
    '--providers-file-directory',
    dir,
  ];
  const properties = { 'bootstrap.servers': brokers, ...MOKAPI_CLIENT_PROPERTIES };
  const logs: StandInLog[] = [];
  let child: ChildProcess | undefined;
  const launch = async () => {
    const log = standInLog('mokapi');
    logs.push(log);
    child = spawnLogged(MOKAPI_BIN, args, log);
    const running = child;
    try {
      await waitUntilReady(properties, Object.keys(topics), () => running.exitCode, log);
    } catch (error) {
      await stopProcess(running);
      throw error;
    }
  };
  const halt = async () => {
    if (child) await stopProcess(child);
  };
  const stop = async () => {
    await halt();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await launch();
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    brokers,
    properties,
    topic: (name) => known(topics, name, name),
    restart: async () => {
      await halt();
      await launch();
    },
    defect: (error) =>
      mokapiDefect(
        logs.map((log) => log.text()),
        error,
      ),
    stop,
  };
}

/**
 * `STREAMFOLD_TEST_KAFKA_WATCHDOG=off`: clients also get `statistics.interval.ms=0`, which turns
 * librdkafka's statistics off and with them the client watchdog (operators/broker/kafka/watchdog.ts),
 * to tell whether a librdkafka upgrade made it unnecessary (operators/README.md, "The client watchdog").
 */
const WATCHDOG_OFF: Record<string, string> =
  process.env.STREAMFOLD_TEST_KAFKA_WATCHDOG === 'off' ? { 'statistics.interval.ms': '0' } : {};

async function useCluster(brokers: string, topics: Record<string, number>): Promise<KafkaFixture> {
  const suffix = `-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
  const properties = { 'bootstrap.servers': brokers, ...WATCHDOG_OFF };
  const names = Object.keys(topics).map((name) => name + suffix);
  await createTopics(
    brokers,
    Object.fromEntries(Object.entries(topics).map(([name, partitions]) => [name + suffix, partitions])),
  );
  await waitUntilReady(properties, names, () => null);
  return {
    brokers,
    properties,
    topic: (name) => known(topics, name, name + suffix),
    restart: () =>
      Promise.reject(new Error(`restart: ${brokers} is shared; start a broker of the test's own`)),
    defect: () => null,
    stop: () => deleteTopics(brokers, names),
  };
}

/**
 * Mokapi's defects (design/test-infra.md) by their signature in its log. The idempotent-producer
 * rejection is not logged by Mokapi: it is recognised by what librdkafka makes of Mokapi's answer
 * (the out-of-sequence error, then the producer's fatal error that purges its queue); librdkafka
 * manages the sequence numbers itself, so on Mokapi these come from the stand-in.
 */
const MOKAPI_DEFECTS: readonly { name: string; inLog?: RegExp; inAnswer?: RegExp; firstOnly?: true }[] = [
  // A restarted Mokapi logs it for the old clients' first requests, every time: there it is no defect.
  { name: 'garbled connection (kafka panic)', inLog: /kafka panic/, firstOnly: true },
  { name: 'crash (concurrent map writes)', inLog: /concurrent map writes/ },
  { name: 'corrupted search index', inLog: /error opening new segment/ },
  {
    name: 'idempotent batch rejected as out of sequence',
    inAnswer: /out of order sequence|Local: Fatal error|Purged in queue/i,
  },
];

/** `logs`: the log of each Mokapi process of a fixture, the first one started, then restarts. */
function mokapiDefect(logs: readonly string[], error: unknown): string | null {
  const answer = error instanceof Error ? `${error.message}\n${error.stack ?? ''}` : String(error);
  for (const defect of MOKAPI_DEFECTS) {
    const searched = (defect.firstOnly ? logs.slice(0, 1) : logs).join('\n');
    const line = defect.inLog
      ? searched.split('\n').find((l) => defect.inLog!.test(l))
      : defect.inAnswer?.exec(answer)?.[0];
    if (line) return `Mokapi defect: ${defect.name}: ${line.trim().slice(0, 300)}`;
  }
  return null;
}

function known(topics: Record<string, number>, name: string, actual: string): string {
  if (!(name in topics)) throw new Error(`topic "${name}" was not declared in startKafka({ topics })`);
  return actual;
}

function asyncApiDocument(brokers: string, topics: Record<string, number>): string {
  const channels = Object.entries(topics).map(
    ([name, partitions]) =>
      `  ${JSON.stringify(name)}:\n` +
      `    bindings: { kafka: { partitions: ${partitions} } }\n` +
      '    subscribe: { message: { contentType: application/octet-stream, payload: {} } }\n' +
      '    publish: { message: { contentType: application/octet-stream, payload: {} } }\n',
  );
  return [
    "asyncapi: '2.6.0'",
    "info: { title: streamfold-test, version: '1.0' }",
    'servers:',
    `  broker: { url: '${brokers}', protocol: kafka }`,
    'channels:',
    ...channels,
  ].join('\n');
}

/** A port that accepts is not a ready broker: ask a fresh client for the topics' metadata until it answers. */
async function waitUntilReady(
  properties: Record<string, string>,
  topics: readonly string[],
  exitCode: () => number | null,
  log?: StandInLog,
): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let lastError = 'no answer';
  while (Date.now() < deadline) {
    if (exitCode() !== null)
      throw new Error(`mokapi exited with code ${exitCode()}: ${log?.tail(TAIL_LINES)}`);
    try {
      const { 'bootstrap.servers': bootstrap, ...rest } = properties;
      const metadata = await clusterMetadata(bootstrap!, Math.min(5000, deadline - Date.now()), rest);
      const missing = topics.filter((t) => !metadata.topics.has(t));
      if (missing.length === 0) return;
      lastError = `topics not yet visible: ${missing.join(', ')}`;
    } catch (error) {
      lastError = (error as Error).message;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(
    `Kafka at ${properties['bootstrap.servers']} not ready after ${READY_TIMEOUT_MS} ms: ${lastError}`,
  );
}
