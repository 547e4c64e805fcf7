/**
 * The Kafka Streams peer as a benchmark target (`bench/peers/kafka-streams/`, its README says what
 * it is): built once, then one JVM per run, started paused like the engine.
 *
 * - **Build**: `mvn dependency:build-classpath` (Kafka Streams of the broker's version, Jackson,
 *   log4j2, from Maven's local repository; Maven Central the first time) and `javac`, into
 *   `~/.cache/streamfold/kafka-streams-peer-<hash of the POM and sources>/` (`$XDG_CACHE_HOME`
 *   when set); skipped while that folder and every jar it lists exist. Nothing lands in the tree.
 * - **Run**: `java -Xmx512m` with a fresh state dir; ready once it prints `READY` (paused, group
 *   joined, internal topics created, partitions assigned); `start()` writes `start` to its stdin
 *   and resolves when it prints `RUNNING` (a paused instance restores its empty stores only once
 *   resumed: start-up, not processing). Its CPU and peak RSS are the JVM's (`pid`).
 * - **Idle**: the application's group has committed, on every partition of every topic it reads
 *   (the inputs and its repartition topics, found by the application-id prefix), the partition's
 *   end offset. One snapshot of the committed offsets, then the end offsets: Kafka Streams commits
 *   input offsets only after flushing its caches and producer, so derived records are already in
 *   their topics by then, and show as not yet committed.
 * - **Stop**: closes its stdin (the JVM closes Kafka Streams and exits; killed after 20 s), deletes
 *   its internal topics and state dir. It never outlives this process: stdin ends when this
 *   process dies, and an exit handler kills it.
 *
 * @example
 *   const peer = await startStreamsPeer({ bootstrap, workload: 'W1', store: 'memory', topics, applicationId: 'bench-x' });
 *   await until('assigned', () => peer.ready(), peer, 60_000);
 *   peer.start();
 */
import { type ChildProcessWithoutNullStreams, execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import Kafka from 'node-rdkafka';
import { clusterMetadata, deleteTopics } from '../../local-kafka/admin.ts';
import { javaAndMavenPresent, MissingToolError } from '../../local-kafka/classpath.ts';
import type { KafkaTarget, RunTopics } from './kafka-target.ts';

const run = promisify(execFile);

export const PEER_DIR = join(dirname(fileURLToPath(import.meta.url)), '../peers/kafka-streams');
const MAIN_CLASS = 'dev.streamfold.peer.Peer';
const HEAP = '512m';
/** Maven downloads Kafka Streams and RocksDB (about 70 MB) on a fresh machine. */
const BUILD_TIMEOUT_MS = 10 * 60_000;
const STOP_TIMEOUT_MS = 20_000;
const OFFSETS_TIMEOUT_MS = 10_000;
const STDERR_LINES = 40;

export type PeerStore = 'memory' | 'rocksdb';
export type PeerWorkload = 'W1' | 'W4';

export interface PeerBuild {
  /** Compiled classes first, then every jar: `java -cp`'s argument. */
  readonly classpath: string;
  /** False when this call built it, true when the cached build was used. */
  readonly cached: boolean;
  readonly seconds: number;
}

let building: Promise<PeerBuild> | undefined;

/** True when what the build needs is on the PATH: `java`, `mvn` and a JDK's `javac`. */
export function peerToolsPresent(path = process.env.PATH ?? ''): boolean {
  return javaAndMavenPresent(path) && path.split(':').some((dir) => existsSync(join(dir, 'javac')));
}

/** The peer's classpath, built at most once per process and once per source version. */
export function buildStreamsPeer(): Promise<PeerBuild> {
  building ??= build();
  return building;
}

async function build(): Promise<PeerBuild> {
  const started = Date.now();
  const sources = javaSources(join(PEER_DIR, 'src'));
  const hash = createHash('sha256');
  for (const file of [join(PEER_DIR, 'pom.xml'), ...sources])
    hash.update(relative(PEER_DIR, file)).update('\0').update(readFileSync(file)).update('\0');
  const dir = join(cacheDir(), `kafka-streams-peer-${hash.digest('hex').slice(0, 16)}`);
  const cached = usable(dir);
  if (cached) return { classpath: cached, cached: true, seconds: (Date.now() - started) / 1000 };

  const tmp = `${dir}.${process.pid}.tmp`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(join(tmp, 'classes'), { recursive: true });
  try {
    await tool('mvn', [
      '-B',
      '-ntp',
      '-q',
      '-f',
      join(PEER_DIR, 'pom.xml'),
      'dependency:build-classpath',
      `-Dmdep.outputFile=${join(tmp, 'classpath')}`,
      '-Dmdep.includeScope=runtime',
    ]);
    const jars = readFileSync(join(tmp, 'classpath'), 'utf8').trim();
    await tool('javac', [
      '--release',
      '17',
      '-encoding',
      'UTF-8',
      '-d',
      join(tmp, 'classes'),
      '-cp',
      jars,
      ...sources,
    ]);
    // Renamed whole: a concurrent build (another test file) either finds it complete or not at all,
    // and the second of two builds at once keeps the first one's.
    try {
      renameSync(tmp, dir);
    } catch (error) {
      if (!usable(dir)) throw error;
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  const classpath = usable(dir);
  if (!classpath) throw new Error(`the Kafka Streams peer's build in ${dir} is incomplete`);
  return { classpath, cached: false, seconds: (Date.now() - started) / 1000 };
}

/** The classpath of a finished build whose jars are all still there, else null. */
function usable(dir: string): string | null {
  const file = join(dir, 'classpath');
  if (!existsSync(file) || !existsSync(join(dir, 'classes'))) return null;
  const jars = readFileSync(file, 'utf8').trim();
  if (jars === '' || !jars.split(':').every((jar) => existsSync(jar))) return null;
  return `${join(dir, 'classes')}:${jars}`;
}

function javaSources(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.java'))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

async function tool(command: string, args: readonly string[]): Promise<void> {
  try {
    await run(command, args, { timeout: BUILD_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 });
  } catch (error) {
    const failure = error as NodeJS.ErrnoException & { stdout?: string; stderr?: string };
    if (failure.code === 'ENOENT')
      throw new MissingToolError(`${command} not found: the Kafka Streams peer needs a JDK 17+ and Maven`);
    const output = `${failure.stdout ?? ''}${failure.stderr ?? ''}`.trim().split('\n').slice(-20).join('\n');
    throw new Error(`building the Kafka Streams peer: ${command} failed:\n${output}`);
  }
}

function cacheDir(): string {
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'streamfold');
}

export interface StreamsPeerOptions {
  readonly bootstrap: string;
  readonly workload: PeerWorkload;
  readonly store: PeerStore;
  readonly topics: RunTopics;
  /** The application id: its consumer group and the prefix of its internal topics. */
  readonly applicationId: string;
}

export interface StreamsPeer extends KafkaTarget {
  /** The JVM. */
  readonly pid: number;
}

export async function startStreamsPeer(options: StreamsPeerOptions): Promise<StreamsPeer> {
  const { topics, applicationId, bootstrap } = options;
  if (options.workload !== 'W1' && options.workload !== 'W4')
    throw new Error(`the Kafka Streams peer runs W1 and W4, not ${options.workload}`);
  const { classpath } = await buildStreamsPeer();
  const stateDir = mkdtempSync(join(tmpdir(), 'streamfold-streams-peer-'));
  const input = (node: string) => topics.inputs.get(node) ?? `${topics.output}.unused-${node}`;
  const child: ChildProcessWithoutNullStreams = spawn(
    'java',
    [
      `-Xmx${HEAP}`,
      '-Djava.awt.headless=true',
      `-Dlog4j2.configurationFile=${join(PEER_DIR, 'log4j2.properties')}`,
      '-cp',
      classpath,
      MAIN_CLASS,
      ...['--bootstrap', bootstrap, '--workload', options.workload, '--store', options.store],
      ...['--customers', input('customers'), '--orders', input('orders'), '--items', input('items')],
      ...['--output', topics.output, '--application-id', applicationId, '--state-dir', stateDir],
    ],
    { stdio: ['pipe', 'pipe', 'pipe'] },
  );
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const exited = new Promise<number | null>((done) =>
    child.once('exit', (code) => {
      process.removeListener('exit', killOnExit);
      done(code);
    }),
  );
  const stderr: string[] = [];
  createInterface({ input: child.stderr }).on('line', (line) => {
    stderr.push(line);
    if (stderr.length > STDERR_LINES) stderr.shift();
  });
  let ready = false;
  let stopping = false;
  let reportFailure: (error: Error) => void = () => {};
  const failed = new Promise<never>((_, fail) => {
    reportFailure = fail;
  });
  failed.catch(() => undefined);
  const failure = (what: string) =>
    new Error(
      `the Kafka Streams peer ${what}${stderr.length > 0 ? `; its last log lines:\n${stderr.join('\n')}` : ''}`,
    );
  let resumed: () => void = () => {};
  const runs = new Promise<void>((done) => {
    resumed = done;
  });
  createInterface({ input: child.stdout }).on('line', (line) => {
    if (line === 'READY') ready = true;
    else if (line.startsWith('RUNNING')) resumed();
    else if (line.startsWith('FAILED')) reportFailure(failure(`failed: ${line}`));
  });
  child.once('error', (error) => reportFailure(failure(`could not start: ${error.message}`)));
  void exited.then((code) => {
    if (!stopping) reportFailure(failure(`exited (code ${code})`));
  });

  // Committed and end offsets, read as any tool would: a client of the group that never joins it.
  const offsets = new Kafka.KafkaConsumer(
    { 'bootstrap.servers': bootstrap, 'group.id': applicationId, 'enable.auto.commit': false },
    {},
  );
  await new Promise<void>((done, fail) =>
    offsets.connect({ timeout: OFFSETS_TIMEOUT_MS }, (err) => (err ? fail(err) : done())),
  ).catch((error: unknown) => {
    stopping = true;
    child.kill('SIGKILL');
    throw error;
  });
  let read: Kafka.TopicPartition[] | undefined;
  const internalTopics = async () =>
    [...(await clusterMetadata(bootstrap, OFFSETS_TIMEOUT_MS)).topics.keys()].filter((t) =>
      t.startsWith(`${applicationId}-`),
    );
  /** Every partition the application reads: its inputs and its repartition (and FK-join) topics. */
  const partitionsRead = async () => {
    const metadata = await clusterMetadata(bootstrap, OFFSETS_TIMEOUT_MS);
    const names = [
      ...topics.inputs.values(),
      ...[...metadata.topics.keys()].filter(
        (t) => t.startsWith(`${applicationId}-`) && !t.endsWith('-changelog'),
      ),
    ];
    return names.flatMap((topic) =>
      Array.from({ length: metadata.topics.get(topic) ?? 0 }, (_, partition) => ({ topic, partition })),
    );
  };

  return {
    pid: child.pid as number,
    ready: async () => ready,
    start: () => {
      child.stdin.write('start\n');
      return runs;
    },
    failed,
    async idle() {
      read ??= await partitionsRead();
      const wanted = read;
      const committed = await new Promise<Kafka.TopicPartitionOffset[]>((done, fail) =>
        offsets.committed(wanted, OFFSETS_TIMEOUT_MS, (err, result) => (err ? fail(err) : done(result))),
      ).catch(() => null);
      if (!committed) return false;
      const ends = await Promise.all(
        wanted.map(
          ({ topic, partition }) =>
            new Promise<number>((done, fail) =>
              offsets.queryWatermarkOffsets(topic, partition, OFFSETS_TIMEOUT_MS, (err, w) =>
                err ? fail(err) : done(w.highOffset),
              ),
            ),
        ),
      ).catch(() => null);
      if (!ends) return false;
      return wanted.every(({ topic, partition }, i) => {
        const at = committed.find((c) => c.topic === topic && c.partition === partition)?.offset ?? -1;
        // A partition that never had a record has nothing to commit.
        return ends[i] === 0 || at === ends[i];
      });
    },
    async stop() {
      stopping = true;
      child.stdin.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
      await new Promise<void>((done) => offsets.disconnect(() => done()));
      await deleteTopics(bootstrap, await internalTopics().catch(() => []));
      rmSync(stateDir, { recursive: true, force: true });
    },
  };
}
