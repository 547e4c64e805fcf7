/**
 * Two `streamfold run` processes with the same config (only `server.port` differs) on one Kafka
 * (every topic `PARTITIONS` partitions) and one MongoDB: a diamond graph in read-delete mode gets a
 * seeded mix of creates, updates, child moves and head deletes. Once both instances have worked on
 * their partitions, a third of the way through the input, the caller's `disturb` runs (SIGKILL an
 * instance, or a Kafka node); then the rest is sent. Every head key must end on the aggregate one
 * embedded engine ends on for the same events (itself checked against the oracle's aggregates of
 * the final records), every deleted one on d + tombstone. Shared by the scale-out and the broker
 * failover tests.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { createKafkaBroker } from '../../../engine/broker/kafka/index.ts';
import type { ConsumedMessage } from '../../../engine/broker/types.ts';
import type { JsonValue } from '../../../engine/record/json.ts';
import { canonicalJson } from '../../../engine/record/key.ts';
import { configFor, DIAMOND } from '../../support/configs.ts';
import { runEvents } from '../../support/embedded.ts';
import type { MongoFixture } from '../../support/mongo.ts';
import { expectedAggregates, type InputEvent } from '../../support/oracle.ts';
import { freePorts } from '../../support/process.ts';
import { diamondEvents } from '../../support/random-events.ts';

export const PARTITIONS = 3;
/** The diamond's input topics, its internal updates' and its output's, by node name. */
export const NODES = [...DIAMOND.nodes, 'internal', 'output'];
/** One consumer group per node, and the internal updates'. */
const PIPELINES = DIAMOND.nodes.length + 1;

export interface Instance {
  readonly child: ChildProcess;
  readonly base: string;
  logs(): string;
}

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
  /** Runs a third of the way through the input, with both instances at work. */
  disturb(instances: readonly [Instance, Instance]): Promise<void>;
  /** The instances still running at the end: together they own every partition. */
  readonly survivors: (instances: readonly [Instance, Instance]) => readonly Instance[];
}

export async function until(
  what: string,
  check: () => Promise<boolean>,
  timeoutMs: number,
  detail = () => '',
) {
  for (const deadline = Date.now() + timeoutMs; !(await check().catch(() => false)); ) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}${detail()}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

function startInstance(config: object, dir: string, name: string, mongoUrl: string, port: number): Instance {
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(config));
  const child = spawn(process.execPath, ['bin/streamfold.js', 'run', file], {
    env: { ...process.env, TEST_MONGODB_URL: mongoUrl, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let logs = '';
  const keep = (d: Buffer) => {
    logs = (logs + d).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return { child, base: `http://127.0.0.1:${port}`, logs: () => logs };
}

async function metricLines(instance: Instance, name: string): Promise<string[]> {
  const text = await (await fetch(`${instance.base}/-/metrics`)).text();
  return text.split('\n').filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `));
}

async function metricSum(instance: Instance, name: string): Promise<number> {
  return (await metricLines(instance, name)).reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
}

/**
 * What one embedded engine (in-process broker, MemoryStore) ends on for the same events: each
 * head key's last aggregate, keys ending on a tombstone left out. It must also be the oracle's
 * (the aggregates of the final records, computed the slow way), or the comparison proves nothing.
 */
async function embeddedAggregates(events: readonly InputEvent[]): Promise<Map<string, JsonValue>> {
  const config = configFor(DIAMOND);
  const embedded = await runEvents(config, events, { partitions: PARTITIONS });
  const result = new Map<string, JsonValue>();
  for (const [key, value] of embedded.last) {
    if (value) result.set(canonicalJson(JSON.parse(key)), value.after as JsonValue);
  }
  const oracle = expectedAggregates(config, events).get('customers') ?? new Map<string, JsonValue>();
  assert.equal(result, oracle, 'the embedded engine ends on the aggregates of the final records');
  return result;
}

/** One run: both instances, the input, `disturb` a third of the way, convergence checked. */
export async function runTwoInstances(options: TwoInstancesOptions): Promise<void> {
  const { properties, topic, mongo, seed } = options;
  const dir = mkdtempSync(join(tmpdir(), 'streamfold-two-instances-'));
  const instances: Instance[] = [];
  const output = createKafkaBroker({ properties }).consumer({
    groupId: `two-instances-reader-${seed}`,
    properties,
  });
  const last = new Map<string, [ConsumedMessage | undefined, ConsumedMessage]>();
  let reading = true;
  let reader: Promise<void> = Promise.resolve();
  try {
    const ports = await freePorts(2);
    const configOf = (port: number) =>
      configFor(DIAMOND, (d) => {
        // Own consumer groups per run: a run's killed instances never hold up the next one's.
        d.id = `twoInstances${seed}`;
        d.connections.main.config = properties;
        for (const [node, consumer] of Object.entries(d.consumers.config))
          Object.assign(consumer as object, { topic: topic(node) }, options.consumerProperties);
        d.producer.config.topic = topic('output');
        d.processor.persistence.config = {
          url: { type: 'env', key: 'TEST_MONGODB_URL' },
          database: mongo.database,
        };
        d.processor.internalUpdates.config.topic = topic('internal');
        d.processor.internalUpdates.config.consumer = { commitIntervalMs: 0, ...options.consumerProperties };
        d.server = { ip: '127.0.0.1', port, apiPrefix: '/api' };
      });
    for (const [i, name] of ['first', 'second'].entries())
      instances.push(startInstance(configOf(ports[i]!), dir, name, mongo.url, ports[i]!));
    const pair = instances as [Instance, Instance];
    const logsOf = () =>
      instances.map((i, n) => `\n--- instance ${n} ---\n${i.logs().slice(-3000)}`).join('');
    for (const instance of instances)
      await until(
        'both instances are ready',
        async () => (await fetch(`${instance.base}/-/ready`)).status === 200,
        120_000,
        logsOf,
      );

    await output.connect();
    output.subscribe([topic('output')]);
    reader = (async () => {
      while (reading) {
        for (const m of await output.consume(500, 200)) {
          const key = m.key?.toString() ?? '';
          last.set(key, [last.get(key)?.[1], m]);
        }
      }
    })();

    const producer = createKafkaBroker({ properties }).producer({ properties });
    await producer.connect();
    const events = diamondEvents(seed, options.events, 0.25);
    const send = (batch: readonly InputEvent[]) =>
      Promise.all(
        batch.map((e) =>
          producer.produce({
            topic: topic(e.topic),
            key: Buffer.from(JSON.stringify(e.key)),
            value: Buffer.from(JSON.stringify(e.value)),
          }),
        ),
      );
    const third = Math.floor(options.events / 3);
    await send(events.slice(0, third));
    // Both instances must own partitions of the inputs and of the internal updates: the
    // disturbance hits work of each in flight or uncommitted.
    for (const instance of instances)
      await until(
        'both instances consumed input and recomputed heads',
        async () =>
          (await metricSum(instance, 'streamfold_consumed_messages_total')) > 0 &&
          (await metricSum(instance, 'streamfold_head_recomputes_total')) > 0,
        120_000,
        logsOf,
      );
    await options.disturb(pair);
    await send(events.slice(third));
    await producer.disconnect();

    const expected = await embeddedAggregates(events);
    const converged = () => {
      for (const [ck, aggregate] of expected) {
        const value = last.get(ck)?.[1].value;
        if (!value) return false;
        const message = JSON.parse(value.toString());
        if (message.op !== 'r' || JSON.stringify(message.after) !== JSON.stringify(aggregate)) return false;
      }
      for (const [ck, [deleted, tombstone]] of last) {
        if (expected.has(ck)) continue;
        if (tombstone.value !== null || !deleted?.value) return false;
        if (JSON.parse(deleted.value.toString()).op !== 'd') return false;
      }
      return true;
    };
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
    const report = () => {
      const wrong = [...expected.keys(), ...last.keys()].filter((ck, i, all) => all.indexOf(ck) === i);
      const lines = wrong.map((ck) => {
        const [before, final] = last.get(ck) ?? [undefined, undefined];
        const text = (m?: ConsumedMessage) =>
          m ? (m.value?.toString().slice(0, 120) ?? 'tombstone') : 'none';
        return `${ck}: expected ${expected.has(ck) ? 'r' : 'd + tombstone'}; last two: ${text(before)} | ${text(final)}`;
      });
      return `\nsurvivors' lag: ${lagging}\n${lines.join('\n')}${logsOf()}`;
    };
    // All input committed (so every output it causes is out), then the output per key checked.
    await until('the survivors have committed all input and internal updates', caughtUp, 240_000, report);
    await until('the output converged', async () => converged(), 30_000, report);
    for (const survivor of survivors)
      assert.ok(survivor.child.exitCode === null, `a survivor is still running${logsOf()}`);
  } finally {
    reading = false;
    await reader.catch(() => {});
    await output.disconnect().catch(() => {});
    for (const instance of instances) instance.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}
