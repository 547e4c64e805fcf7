/**
 * `streamfold run` processes on Kafka and MongoDB, as a deployment runs them: a diamond graph's
 * configuration per instance (only `server.port` differs), each written to a file and started
 * as its own process, with its HTTP surface, metrics and logs at hand.
 *
 * @example
 *   const config = diamondRunConfig({ kafka, mongo, topic: (node) => kafka.topic(node), port });
 *   const instance = startInstance(config, dir, 'first', mongo.url, port);
 *   await until('ready', async () => (await fetch(`${instance.base}/-/ready`)).status === 200, 120_000);
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../../engine/config/index.ts';
import type { ClientProperties } from '../../operators/broker/types.ts';
import { configFor, DIAMOND } from './configs.ts';
import type { KafkaFixture } from './kafka.ts';
import type { MongoFixture } from './mongo.ts';

export interface Instance {
  readonly child: ChildProcess;
  /** `http://127.0.0.1:<port>` */
  readonly base: string;
  /** The exit code (null when killed by a signal). */
  readonly exited: Promise<number | null>;
  /** The last 20 000 characters of its stdout and stderr. */
  logs(): string;
  /** All of its stdout and stderr (at `LOG_LEVEL=warn`, what it warned about). */
  output(): string;
}

export function startInstance(config: Config, dir: string, name: string, mongoUrl: string): Instance {
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(config));
  const child = spawn(process.execPath, ['bin/streamfold.js', 'run', file], {
    env: { ...process.env, TEST_MONGODB_URL: mongoUrl, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const chunks: Buffer[] = [];
  const keep = (d: Buffer) => chunks.push(d);
  const output = () => Buffer.concat(chunks).toString('utf8');
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    base: `http://127.0.0.1:${config.server.port}`,
    exited,
    logs: () => output().slice(-20_000),
    output,
  };
}

/** A metric's series on an instance's `/-/metrics`, one `name{labels} value` line each. */
export async function metricLines(instance: Instance, name: string): Promise<string[]> {
  const text = await (await fetch(`${instance.base}/-/metrics`)).text();
  return text.split('\n').filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `));
}

/** The sum of a metric's series on an instance's `/-/metrics`. */
export async function metricSum(instance: Instance, name: string): Promise<number> {
  return (await metricLines(instance, name)).reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
}

/** The tail of each instance's logs, for a failure message. */
export function logsOf(instances: readonly Instance[]): string {
  return instances.map((i, n) => `\n--- instance ${n} ---\n${i.logs().slice(-3000)}`).join('');
}

export interface DiamondRunOptions {
  readonly id: string;
  /** Only its client properties are used: any cluster's will do. */
  readonly kafka: Pick<KafkaFixture, 'properties'>;
  readonly mongo: MongoFixture;
  /** The topic of a node, of `internal` and of `output`. */
  readonly topic: (node: string) => string;
  readonly port: number;
  /** Consumer properties of every pipeline (input nodes and internal updates), as a user sets them. */
  readonly consumer?: ClientProperties;
}

/** The diamond graph in read-delete mode, on the fixture's Kafka and MongoDB. */
export function diamondRunConfig(options: DiamondRunOptions): Config {
  const { kafka, mongo, topic } = options;
  return configFor(DIAMOND, (d) => {
    d.id = options.id;
    d.connections.main.config = kafka.properties;
    for (const [node, consumer] of Object.entries(d.consumers.config))
      Object.assign(consumer as object, { topic: topic(node) }, options.consumer);
    d.producer.config.topic = topic('output');
    d.processor.persistence.config = {
      url: { type: 'env', key: 'TEST_MONGODB_URL' },
      database: mongo.database,
    };
    d.processor.internalUpdates.config.topic = topic('internal');
    d.processor.internalUpdates.config.consumer = { commitIntervalMs: 0, ...options.consumer };
    d.server = { ip: '127.0.0.1', port: options.port, apiPrefix: '/api' };
  });
}
