/**
 * Kafka for tests, as `backends.ts` chooses: the cluster named by `KAFKA_BROKERS` or a Redpanda
 * container, with freshly created topics, else a Mokapi process (a Kafka protocol emulator, see
 * design/test-infra.md) started on free loopback ports.
 *
 * @example
 *   const kafka = await startKafka({ topics: { orders: 2 } });
 *   const broker = createKafkaBroker({ properties: kafka.properties });
 *   // ... produce to kafka.topic('orders') ...
 *   await kafka.stop();
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Kafka from 'node-rdkafka';
import { backends } from './backends.ts';
import { freePorts, spawnLogged, stopProcess } from './process.ts';
import { type StandInLog, standInLog, TAIL_LINES } from './stand-in-log.ts';

export interface KafkaFixture {
  /** `host:port[,host:port]` of the cluster. */
  readonly brokers: string;
  /** `bootstrap.servers` plus the client properties every client must get (Mokapi's defect, see test-infra.md). */
  readonly properties: Record<string, string>;
  /** The actual topic name for a name given to `startKafka` (a real cluster gets a unique suffix per run). */
  topic(name: string): string;
  /**
   * Mokapi only: stops the broker and starts a fresh one on the same port with the same topics.
   * It forgets everything, producer ids included (producers then get INVALID_PRODUCER_ID_MAPPING).
   */
  restart(): Promise<void>;
  /**
   * The known stand-in defect behind a failure, recognised from Mokapi's log (or from Mokapi's own
   * error answer quoted in `error`, for the one it does not log), else null. Always null on a
   * real cluster: there a failure is the test's.
   */
  defect(error: unknown): string | null;
  stop(): Promise<void>;
}

/**
 * Mokapi now and then garbles a connection; with librdkafka defaults a client then stalls for 60 s.
 * These make it recover within seconds (measured, design/test-infra.md); harmless on a real cluster.
 */
const RESILIENT_CLIENT_PROPERTIES = {
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
const MOKAPI_CLIENT_PROPERTIES = { ...RESILIENT_CLIENT_PROPERTIES, 'batch.num.messages': '1' };

const MOKAPI_BIN = resolve('node_modules/@go-mokapi/linux-x64/bin/mokapi');
/** Mokapi starts in 1-2 s on an idle machine; the bound holds with both cores busy. */
const READY_TIMEOUT_MS = 60_000;

/**
 * Mokapi 0.52 answers the metadata request with a malformed response ("bad message format") for
 * some topic sets, deterministically: measured here, 3 or 5 topics of 1 partition and 6 topics of
 * 2 fail, while 1-2 topics of 1 and 5 topics of 2 work. Tests declare sets that work; readiness
 * fails after 30 s with that message otherwise.
 */
export async function startKafka(options: { topics: Record<string, number> }): Promise<KafkaFixture> {
  const backend = (await backends()).kafka;
  if (backend.kind === 'external') return useCluster(backend.address, options.topics);
  if (backend.kind === 'container') return startRedpanda(backend.image, options.topics);
  return startMokapi(options.topics);
}

/** Whether `restart()` works here: only on Mokapi (a container or a cluster is not the test's to restart). */
export async function kafkaRestartable(): Promise<boolean> {
  return (await backends()).kafka.kind === 'stand-in';
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

async function useCluster(brokers: string, topics: Record<string, number>): Promise<KafkaFixture> {
  const suffix = `-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
  const properties = { 'bootstrap.servers': brokers, ...RESILIENT_CLIENT_PROPERTIES };
  const admin = Kafka.AdminClient.create(clientConfig(properties));
  try {
    for (const [name, partitions] of Object.entries(topics)) {
      await new Promise<void>((done, fail) =>
        admin.createTopic(
          { topic: name + suffix, num_partitions: partitions, replication_factor: -1 },
          10_000,
          (err) =>
            err ? fail(new Error(`creating topic ${name + suffix} on ${brokers}: ${err.message}`)) : done(),
        ),
      );
    }
  } finally {
    admin.disconnect();
  }
  await waitUntilReady(
    properties,
    Object.keys(topics).map((name) => name + suffix),
    () => null,
  );
  const stop = async () => {
    const cleanup = Kafka.AdminClient.create(clientConfig(properties));
    await Promise.all(
      Object.keys(topics).map(
        (name) => new Promise<void>((done) => cleanup.deleteTopic(name + suffix, 10_000, () => done())),
      ),
    );
    cleanup.disconnect();
  };
  return {
    brokers,
    properties,
    topic: (name) => known(topics, name, name + suffix),
    restart: () => Promise.reject(new Error(`restart: ${brokers} is an external cluster, not Mokapi`)),
    defect: () => null,
    stop,
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
      const names = await metadataTopics(properties, Math.min(5000, deadline - Date.now()));
      const missing = topics.filter((t) => !names.has(t));
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

function metadataTopics(properties: Record<string, string>, timeoutMs: number): Promise<Set<string>> {
  const client = new Kafka.Producer(clientConfig(properties));
  return new Promise<Set<string>>((done, fail) => {
    client.connect({ timeout: timeoutMs }, (err, metadata) => {
      // A client that failed to connect throws on disconnect ("Producer not connected").
      if (client.isConnected()) client.disconnect(() => {});
      if (err) fail(new Error(err.message));
      else done(new Set(metadata.topics.map((t) => t.name)));
    });
  });
}

/** librdkafka parses every property from a string; its typings want numbers for some. */
function clientConfig(properties: Record<string, string>): Record<string, string | number | boolean> {
  return { ...properties };
}
