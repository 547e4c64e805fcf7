/**
 * A deployment of `streamfold run` instances of the diamond graph on fresh Kafka topics (a
 * partition count per topic) and a fresh MongoDB database, with the output topic read back from
 * the start: instances are started (and awaited ready) one by one, as a scale-up does.
 *
 * @example
 *   const deployment = await startDeployment({ id: 'scaleUp', partitions: { customers: 1, ... } });
 *   try {
 *     const first = await deployment.start('first');
 *     await deployment.send(events);
 *   } finally {
 *     await deployment.stop();
 *   }
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { INTERNAL_PART } from '../../engine/runtime/engine.ts';
import type { ClientProperties } from '../../operators/broker/types.ts';
import { DIAMOND } from './configs.ts';
import { type OutputReader, readOutput, sendEvents } from './converge.ts';
import { diamondRunConfig, type Instance, logsOf, startInstance } from './instances.ts';
import { type KafkaFixture, startKafka } from './kafka.ts';
import { committedOffsets, endOffsets } from './kafka-offsets.ts';
import { type MongoFixture, startMongo } from './mongo.ts';
import type { InputEvent } from './oracle.ts';
import { freePorts } from './process.ts';
import { until } from './until.ts';

/** The diamond's nodes and the two topics of the engine's own. */
export type DeploymentTopic = 'customers' | 'orders' | 'payments' | 'refunds' | 'internal' | 'output';

export interface DeploymentOptions {
  /** The configuration's `id`: the consumer groups are `streamfold.<id>.<node>`. */
  readonly id: string;
  readonly partitions: Readonly<Record<DeploymentTopic, number>>;
  /** Consumer properties of every pipeline, as a user sets them. */
  readonly consumer?: ClientProperties;
}

export interface Deployment {
  readonly kafka: KafkaFixture;
  readonly mongo: MongoFixture;
  readonly output: OutputReader;
  readonly instances: readonly Instance[];
  /** A topic's actual name. */
  topic(name: string): string;
  /** Starts an instance and waits until it answers ready. */
  start(name: string): Promise<Instance>;
  send(events: readonly InputEvent[]): Promise<void>;
  /**
   * Every consumer group's partitions whose committed offset is not the end of its topic, as
   * `group topic[partition] committed/end`: none once everything written was processed.
   */
  behind(): Promise<string[]>;
  /** The tail of every instance's logs. */
  logs(): string;
  stop(): Promise<void>;
}

export async function startDeployment(options: DeploymentOptions): Promise<Deployment> {
  const topics = Object.fromEntries(
    Object.entries(options.partitions).map(([name, count]) => [`${options.id}-${name}`, count]),
  );
  const [kafka, mongo] = await Promise.all([startKafka({ topics }), startMongo()]);
  const topic = (name: string) => kafka.topic(`${options.id}-${name}`);
  const dir = mkdtempSync(join(tmpdir(), 'streamfold-deployment-'));
  const instances: Instance[] = [];
  const output = await readOutput(kafka, topic('output'), `${options.id}-reader`);
  const logs = () => logsOf(instances);
  return {
    kafka,
    mongo,
    output,
    instances,
    topic,
    logs,
    async start(name) {
      const [port] = await freePorts(1);
      const config = diamondRunConfig({
        id: options.id,
        kafka,
        mongo,
        topic,
        port: port as number,
        ...(options.consumer ? { consumer: options.consumer } : {}),
      });
      const instance = startInstance(config, dir, name, mongo.url);
      instances.push(instance);
      await until(
        `instance ${name} is ready`,
        async () => (await fetch(`${instance.base}/-/ready`)).status === 200,
        120_000,
        logs,
      );
      return instance;
    },
    send: (events) => sendEvents(kafka, topic, events),
    async behind() {
      const groups = [...DIAMOND.nodes.map((node) => [node, node]), [INTERNAL_PART, 'internal']];
      const lines = await Promise.all(
        groups.map(async ([part, name]) => {
          const group = `streamfold.${options.id}.${part}`;
          const partitions = options.partitions[name as DeploymentTopic];
          const [committed, end] = await Promise.all([
            committedOffsets(kafka.brokers, group, topic(name as string), partitions),
            endOffsets(kafka.brokers, topic(name as string), partitions),
          ]);
          return end.flatMap((e, p) =>
            committed[p] === e ? [] : [`${group} ${topic(name as string)}[${p}] ${committed[p]}/${e}`],
          );
        }),
      );
      return lines.flat();
    },
    async stop() {
      await output.stop();
      for (const instance of instances) instance.child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
      await Promise.allSettled([kafka.stop(), mongo.stop()]);
    },
  };
}
