/**
 * Two `streamfold run` processes with the same config (only `server.port` differs) on one Kafka
 * (every topic `PARTITIONS` partitions) and one MongoDB: a diamond graph in read-delete mode gets a
 * seeded mix of creates, updates, child moves and head deletes. Once both instances have worked on
 * their partitions, a third of the way through the input, the caller's `disturb` runs (SIGKILL an
 * instance, or a Kafka node; it may send parts of the rest meanwhile, as a rolling restart of the
 * brokers does); then the rest is sent. Every head key must end on the aggregate one
 * embedded engine ends on for the same events (itself checked against the oracle's aggregates of
 * the final records), every deleted one on d + tombstone. Shared by the scale-out and the broker
 * failover tests. Built on `test/support/`'s instances, output reader and waits, as the scale-up
 * deployments are.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { configFor, DIAMOND } from '../../support/configs.ts';
import { embeddedAggregates, type OutputReader, readOutput, sendEvents } from '../../support/converge.ts';
import {
  diamondRunConfig,
  type Instance,
  logsOf,
  metricLines,
  metricSum,
  startInstance,
} from '../../support/instances.ts';
import type { MongoFixture } from '../../support/mongo.ts';
import { freePorts } from '../../support/process.ts';
import { diamondEvents } from '../../support/random-events.ts';
import { until } from '../../support/until.ts';

export type { Instance } from '../../support/instances.ts';

export const PARTITIONS = 3;
/** The diamond's input topics, its internal updates' and its output's, by node name. */
export const NODES = [...DIAMOND.nodes, 'internal', 'output'];
/** One consumer group per node, and the internal updates'. */
const PIPELINES = DIAMOND.nodes.length + 1;

export interface TwoInstancesOptions {
  /** The clients' properties (`bootstrap.servers` and what a user would add). */
  readonly properties: Record<string, string>;
  /** The actual topic of each of `NODES`, each with `PARTITIONS` partitions. */
  readonly topic: (node: string) => string;
  readonly mongo: MongoFixture;
  readonly seed: number;
  readonly events: number;
  /** Added to every consumer's properties in the config, as a user would. */
  readonly consumerProperties?: Record<string, string>;
  /**
   * Runs a third of the way through the input, with both instances at work. `feed` sends the rest
   * of the input in parts meanwhile, if it likes; what it leaves unsent is sent after it returns.
   */
  disturb(instances: readonly [Instance, Instance], feed: Feed): Promise<void>;
  /** The instances still running at the end: together they own every partition. */
  readonly survivors: (instances: readonly [Instance, Instance]) => readonly Instance[];
  /** Runs once the output converged, the instances still running (e.g. to read their metrics). */
  readonly converged?: (instances: readonly [Instance, Instance]) => Promise<void>;
}

/** The input after its first third, for `disturb` to send in parts, in order. */
export interface Feed {
  /** How many events are left to send. */
  readonly left: number;
  /** Sends the next `count` events (fewer when fewer are left) and waits for their delivery. */
  send(count: number): Promise<void>;
}

/** One run: both instances, the input, `disturb` a third of the way, convergence checked. */
export async function runTwoInstances(options: TwoInstancesOptions): Promise<void> {
  const { topic, mongo, seed } = options;
  const kafka = { properties: options.properties };
  const dir = mkdtempSync(join(tmpdir(), 'streamfold-two-instances-'));
  const instances: Instance[] = [];
  let output: OutputReader | undefined;
  try {
    const ports = await freePorts(2);
    for (const [i, name] of ['first', 'second'].entries()) {
      const config = diamondRunConfig({
        // Own consumer groups per run: a run's killed instances never hold up the next one's.
        id: `twoInstances${seed}`,
        kafka,
        mongo,
        topic,
        port: ports[i]!,
        ...(options.consumerProperties ? { consumer: options.consumerProperties } : {}),
      });
      instances.push(startInstance(config, dir, name, mongo.url));
    }
    const pair = instances as [Instance, Instance];
    const logs = () => logsOf(instances);
    for (const instance of instances)
      await until(
        'both instances are ready',
        async () => (await fetch(`${instance.base}/-/ready`)).status === 200,
        120_000,
        logs,
      );

    output = await readOutput(kafka, topic('output'), `two-instances-reader-${seed}`);
    const events = diamondEvents(seed, options.events, 0.25);
    const third = Math.floor(options.events / 3);
    await sendEvents(kafka, topic, events.slice(0, third));
    // Both instances must own partitions of the inputs and of the internal updates: the
    // disturbance hits work of each in flight or uncommitted.
    for (const instance of instances)
      await until(
        'both instances consumed input and recomputed heads',
        async () =>
          (await metricSum(instance, 'streamfold_consumed_messages_total')) > 0 &&
          (await metricSum(instance, 'streamfold_head_recomputes_total')) > 0,
        120_000,
        logs,
      );
    let sent = third;
    const feed: Feed = {
      get left() {
        return events.length - sent;
      },
      async send(count) {
        const from = sent;
        sent = Math.min(events.length, sent + count);
        await sendEvents(kafka, topic, events.slice(from, sent));
      },
    };
    await options.disturb(pair, feed);
    await feed.send(feed.left);

    const expected = await embeddedAggregates(configFor(DIAMOND), events, PARTITIONS);
    // The survivors' lag per pipeline and partition (refreshed every 5 s): together they own every
    // partition of every topic, and all of it is committed.
    const survivors = options.survivors(pair);
    let lagging = 'no lag reported yet';
    const caughtUp = async () => {
      const series = (
        await Promise.all(survivors.map((s) => metricLines(s, 'streamfold_consumer_lag')))
      ).flat();
      const owned = new Set(series.map((line) => line.split(' ')[0]));
      const behind = series.filter((line) => Number(line.split(' ').at(-1)) !== 0);
      lagging = `${owned.size} partitions owned, behind: ${behind.join(', ') || 'none'}`;
      return owned.size === PIPELINES * PARTITIONS && behind.length === 0;
    };
    const reader = output;
    const report = () => `\nsurvivors' lag: ${lagging}${reader.report(expected)}${logs()}`;
    // All input committed (so every output it causes is out), then the output per key checked.
    await until('the survivors have committed all input and internal updates', caughtUp, 240_000, report);
    await until('the output converged', () => reader.converged(expected), 30_000, report);
    for (const survivor of survivors)
      assert.ok(survivor.child.exitCode === null, `a survivor is still running${logs()}`);
    await options.converged?.(pair);
  } finally {
    await output?.stop();
    for (const instance of instances) instance.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}
