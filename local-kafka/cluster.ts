/**
 * A local Apache Kafka cluster: 1 or 3 KRaft nodes (each broker and controller) on loopback ports,
 * run from the jars Maven resolved (`classpath.ts`). Used by the test runner (one broker for the
 * whole run), by failover tests (a three-node cluster of their own), by benchmarks and by
 * `streamfold kafka`.
 *
 * Ready means: every node logged `Kafka Server started`, and a fresh client's metadata request
 * lists every broker. Each node's stdout and stderr go to its own log file.
 *
 * @example
 *   const cluster = await startLocalKafka({ nodes: 3, logFile: (id) => `/tmp/kafka-${id}.log` });
 *   process.env.KAFKA_BROKERS = cluster.bootstrap;
 *   await cluster.node(cluster.leaderOf('orders', 0)).kill();   // failover
 *   await cluster.stop();
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clusterMetadata } from './admin.ts';
import { LOCAL_KAFKA_DIR, resolveClasspath } from './classpath.ts';
import { endWithThisProcess } from './lifetime.ts';
import { HOST, type NodeEndpoints, nodeConfig } from './node-config.ts';

export interface LocalKafkaOptions {
  /** 1 (default) or 3. */
  readonly nodes?: number;
  /** Port of the first node's broker listener, the others follow it; default: free ports. */
  readonly firstPort?: number;
  /** Kept across runs when given (formatted once); default: a temporary folder removed by `stop`. */
  readonly dataDir?: string;
  /** Where a node writes its output; default: `<dataDir>/node-<id>.log`. */
  readonly logFile?: (nodeId: number) => string;
  /** Java heap of each node; default 768m for one node, 512m each for three. */
  readonly heap?: string;
  /** Extra broker properties for every node. */
  readonly overrides?: Readonly<Record<string, string>>;
  /** Bound of each start, default 90 s (a JVM start on two busy cores). */
  readonly readyTimeoutMs?: number;
  /** How long `stop` waits for a node's controlled shutdown before SIGKILL; default 30 s. */
  readonly stopTimeoutMs?: number;
}

export interface LocalKafkaNode {
  readonly id: number;
  /** `127.0.0.1:<port>` of its broker listener. */
  readonly address: string;
  readonly logFile: string;
  running(): boolean;
  /** The running JVM's process id (its CPU time in `/proc/<pid>/stat`, for benchmarks); else undefined. */
  pid(): number | undefined;
  /** SIGKILL: a crash, no controlled shutdown. */
  kill(): Promise<void>;
  /**
   * SIGTERM: Kafka's controlled shutdown (SIGKILL after `stopTimeoutMs`, 30 s). Resolves once it
   * exited, with how: `signal` is `'SIGKILL'` when it did not exit within the bound (undefined
   * when it was not running).
   */
  stop(): Promise<NodeExit | undefined>;
  /** Starts it again on the same ports and data; resolves once it logged that it started. */
  start(): Promise<void>;
}

/** How a node's JVM exited: its exit code, or the signal that ended it. */
export interface NodeExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export interface LocalKafka {
  /** `host:port,…` of every node's broker listener: a client's `bootstrap.servers`. */
  readonly bootstrap: string;
  readonly kafkaVersion: string;
  /** The nodes' data and (by default) logs. */
  readonly dataDir: string;
  readonly nodes: readonly LocalKafkaNode[];
  node(id: number): LocalKafkaNode;
  /** Stops every node (controlled shutdown) and removes a temporary data folder. */
  stop(): Promise<void>;
}

const STARTED_LINE = 'Kafka Server started';
const BROKER_MAIN = 'kafka.Kafka';

export async function startLocalKafka(options: LocalKafkaOptions = {}): Promise<LocalKafka> {
  const count = options.nodes ?? 1;
  if (count !== 1 && count !== 3) throw new Error(`a local cluster has 1 or 3 nodes, not ${count}`);
  const { classpath, kafkaVersion } = await resolveClasspath();
  const temporary = !options.dataDir;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'streamfold-kafka-'));
  mkdirSync(dataDir, { recursive: true });
  const brokerPorts = options.firstPort
    ? Array.from({ length: count }, (_, i) => options.firstPort! + i)
    : await freePorts(count);
  const controllerPorts = await freePorts(count, new Set(brokerPorts));
  const endpoints: NodeEndpoints[] = brokerPorts.map((brokerPort, i) => ({
    id: i + 1,
    brokerPort,
    controllerPort: controllerPorts[i]!,
  }));
  const clusterId = clusterIdFor(dataDir);
  const heap = options.heap ?? (count === 1 ? '768m' : '512m');
  const readyTimeoutMs = options.readyTimeoutMs ?? 90_000;
  const nodes = endpoints.map((node) => {
    const nodeDir = join(dataDir, `node-${node.id}`);
    const configFile = join(dataDir, `node-${node.id}.properties`);
    writeFileSync(
      configFile,
      nodeConfig({
        node,
        voters: endpoints,
        logDir: nodeDir,
        ...(options.overrides ? { overrides: options.overrides } : {}),
      }),
    );
    return new JavaNode(
      node,
      configFile,
      nodeDir,
      options.logFile?.(node.id) ?? join(dataDir, `node-${node.id}.log`),
      {
        classpath,
        heap,
        readyTimeoutMs,
        stopTimeoutMs: options.stopTimeoutMs ?? 30_000,
      },
    );
  });
  const bootstrap = nodes.map((n) => n.address).join(',');
  const stop = async () => {
    await Promise.all(nodes.map((n) => n.stop()));
    if (temporary) rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await Promise.all(nodes.map((n) => n.format(clusterId)));
    await Promise.all(nodes.map((n) => n.start()));
    await waitForBrokers(bootstrap, count, readyTimeoutMs, nodes);
  } catch (error) {
    await Promise.all(nodes.map((n) => n.kill()));
    if (temporary) rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  return {
    bootstrap,
    kafkaVersion,
    dataDir,
    nodes,
    node: (id) => {
      const found = nodes.find((n) => n.id === id);
      if (!found) throw new Error(`no node ${id} in this cluster (1..${count})`);
      return found;
    },
    stop,
  };
}

/** Until a fresh client sees `count` brokers, or a node died. */
export async function waitForBrokers(
  bootstrap: string,
  count: number,
  timeoutMs: number,
  nodes: readonly LocalKafkaNode[] = [],
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  while (Date.now() < deadline) {
    const dead = nodes.find((n) => !n.running());
    if (dead) throw new Error(`Kafka node ${dead.id} exited while starting: ${tail(dead.logFile)}`);
    try {
      const { brokers } = await clusterMetadata(
        bootstrap,
        Math.min(5000, Math.max(500, deadline - Date.now())),
      );
      if (brokers.length >= count) return;
      last = `${brokers.length} of ${count} brokers registered`;
    } catch (error) {
      last = (error as Error).message;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`Kafka at ${bootstrap} not ready after ${timeoutMs} ms: ${last}`);
}

interface JavaSettings {
  readonly classpath: string;
  readonly heap: string;
  readonly readyTimeoutMs: number;
  readonly stopTimeoutMs: number;
}

class JavaNode implements LocalKafkaNode {
  readonly id: number;
  readonly address: string;
  #child: ChildProcess | undefined;

  constructor(
    endpoints: NodeEndpoints,
    private readonly configFile: string,
    private readonly nodeDir: string,
    readonly logFile: string,
    private readonly java: JavaSettings,
  ) {
    this.id = endpoints.id;
    this.address = `${HOST}:${endpoints.brokerPort}`;
  }

  running(): boolean {
    return this.#child !== undefined && this.#child.exitCode === null && this.#child.signalCode === null;
  }

  pid(): number | undefined {
    return this.running() ? this.#child?.pid : undefined;
  }

  /** Formats the node's folder once (`kafka-storage.sh format`); a formatted one is kept. */
  async format(clusterId: string): Promise<void> {
    if (existsSync(join(this.nodeDir, 'meta.properties'))) return;
    const child = this.#spawn(
      'kafka.tools.StorageTool',
      ['format', '-t', clusterId, '-c', this.configFile],
      '256m',
    );
    const code = await new Promise<number | null>((done) => child.once('exit', done));
    if (code !== 0)
      throw new Error(`formatting Kafka node ${this.id} failed (exit ${code}): ${tail(this.logFile)}`);
  }

  async start(): Promise<void> {
    if (this.running()) return;
    const offset = existsSync(this.logFile) ? statSync(this.logFile).size : 0;
    const child = this.#spawn(BROKER_MAIN, [this.configFile], this.java.heap, [
      '-XX:+UseG1GC',
      '-XX:MaxGCPauseMillis=20',
      '-XX:+ExitOnOutOfMemoryError',
    ]);
    this.#child = child;
    const deadline = Date.now() + this.java.readyTimeoutMs;
    while (!readFrom(this.logFile, offset).includes(STARTED_LINE)) {
      if (!this.running())
        throw new Error(`Kafka node ${this.id} exited while starting: ${tail(this.logFile)}`);
      if (Date.now() > deadline)
        throw new Error(
          `Kafka node ${this.id} did not start within ${this.java.readyTimeoutMs} ms: ${tail(this.logFile)}`,
        );
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  async kill(): Promise<void> {
    await this.#signal('SIGKILL', 0);
  }

  stop(): Promise<NodeExit | undefined> {
    return this.#signal('SIGTERM', this.java.stopTimeoutMs);
  }

  async #signal(signal: NodeJS.Signals, killAfterMs: number): Promise<NodeExit | undefined> {
    const child = this.#child;
    if (!child || !this.running()) return undefined;
    const exited = new Promise<NodeExit>((done) =>
      child.once('exit', (code, exitSignal) => done({ code, signal: exitSignal })),
    );
    // The broker process is unref'd; awaited, it must keep this process alive until it is gone.
    // Else, once the SIGKILL timer has fired (a node whose controlled shutdown hangs, as the last
    // node of three stopped together without a quorum), nothing is left to keep it alive: Node
    // exits with the wait unsettled, and a test file's `after` hook ends it "before reporting".
    child.ref();
    killGroup(child, signal);
    const timer = killAfterMs > 0 ? setTimeout(() => killGroup(child, 'SIGKILL'), killAfterMs) : undefined;
    const exit = await exited;
    clearTimeout(timer);
    return exit;
  }

  #spawn(
    mainClass: string,
    args: readonly string[],
    heap: string,
    jvmFlags: readonly string[] = [],
  ): ChildProcess {
    const fd = openSync(this.logFile, 'a');
    try {
      const child = spawn(
        'java',
        [
          `-Xms${heap}`,
          `-Xmx${heap}`,
          ...jvmFlags,
          '-Djava.awt.headless=true',
          `-Dlog4j2.configurationFile=${join(LOCAL_KAFKA_DIR, 'log4j2.properties')}`,
          '-cp',
          this.java.classpath,
          mainClass,
          ...args,
        ],
        // Its own process group, so a signal to it never reaches its parent's group.
        { detached: true, stdio: ['ignore', fd, fd] },
      );
      // A node never outlives the process that started it, nor keeps it alive: a test file whose
      // broker is still up at its end exits, and the exit handler kills the node. (The format
      // step is awaited: it must keep the process alive until it exits.)
      if (mainClass === BROKER_MAIN) child.unref();
      const killOnExit = () => killGroup(child, 'SIGKILL');
      process.once('exit', killOnExit);
      child.once('exit', () => process.removeListener('exit', killOnExit));
      // An exit handler does not run when this process is SIGKILLed: a watcher kills it then.
      endWithThisProcess(child);
      return child;
    } finally {
      closeSync(fd);
    }
  }
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

/** One cluster id per data folder (kept there), so a kept folder restarts as the same cluster. */
function clusterIdFor(dataDir: string): string {
  const file = join(dataDir, 'cluster-id');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  // 16 random bytes in base64url, as `kafka-storage.sh random-uuid`; Kafka refuses one starting with '-'.
  let id = randomBytes(16).toString('base64url');
  while (id.startsWith('-')) id = randomBytes(16).toString('base64url');
  writeFileSync(file, id);
  return id;
}

/** Ports free on 127.0.0.1 now, all held open together so they are distinct, none of `taken`. */
export async function freePorts(count: number, taken: ReadonlySet<number> = new Set()): Promise<number[]> {
  const servers: ReturnType<typeof createServer>[] = [];
  const ports: number[] = [];
  try {
    while (ports.length < count) {
      const server = createServer();
      await new Promise<void>((done, fail) => {
        server.once('error', fail);
        server.listen(0, HOST, done);
      });
      servers.push(server);
      const port = (server.address() as { port: number }).port;
      if (!taken.has(port)) ports.push(port);
    }
    return ports;
  } finally {
    await Promise.all(servers.map((s) => new Promise((done) => s.close(done))));
  }
}

function readFrom(file: string, offset: number): string {
  try {
    return readFileSync(file).subarray(offset).toString('utf8');
  } catch {
    return '';
  }
}

function tail(file: string): string {
  return `\n${readFrom(file, 0).trimEnd().split('\n').slice(-20).join('\n')}`;
}
