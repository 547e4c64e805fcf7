/**
 * Scaling out, then losing an instance (issue 21): two `streamfold run` processes with the same
 * config (only `server.port` differs) share one Kafka (3 partitions per topic) and one MongoDB; a
 * diamond graph in read-delete mode gets a seeded mix of creates, updates, child moves and head
 * deletes. Once both instances have worked on their partitions, one is SIGKILLed a third of the
 * way through the input; the survivor takes its partitions over when its session times out. Every
 * head key must end on the aggregate one embedded engine ends on for the same events (itself
 * checked against the oracle's aggregates of the final records), every deleted one on
 * d + tombstone. Internal updates travel as many-key messages, one per partition per batch. REPEAT=n runs it n times (durations printed), SCALE_OUT_SEED picks the seed.
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
import { type KafkaFixture, startKafka } from '../../support/kafka.ts';
import { startMongo } from '../../support/mongo.ts';
import { expectedAggregates, type InputEvent } from '../../support/oracle.ts';
import { freePorts } from '../../support/process.ts';
import { diamondEvents } from '../../support/random-events.ts';
import { repeatOnStandInDefect } from '../../support/retry.ts';
import { test } from '../../support/suite.ts';

const REPEAT = Number(process.env.REPEAT ?? 1);
const PARTITIONS = 3;
const EVENTS = 450;
/** Long topic names: on the Mokapi stand-in, librdkafka 2.12 mis-parses the metadata of many short ones (test-infra.md). */
const TOPIC = (node: string) => `scale-out-${node}-topic`;
const NODES = [...DIAMOND.nodes, 'internal', 'output'];
/** One consumer group per node, and the internal updates'. */
const PIPELINES = DIAMOND.nodes.length + 1;
/**
 * The dead member is noticed after its session times out: lowered from librdkafka's 45 s through
 * each consumer's properties in the config, as a user would.
 */
const FAST_GROUP = { 'session.timeout.ms': '6000', 'heartbeat.interval.ms': '500' };

async function until(what: string, check: () => Promise<boolean>, timeoutMs: number, detail = () => '') {
  for (const deadline = Date.now() + timeoutMs; !(await check().catch(() => false)); ) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}${detail()}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

interface Instance {
  readonly child: ChildProcess;
  readonly base: string;
  logs(): string;
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

async function metricSum(instance: Instance, name: string): Promise<number> {
  const text = await (await fetch(`${instance.base}/-/metrics`)).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))
    .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
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

/** One run on fresh topics and its own jongodb; `started.kafka` lets the caller read Mokapi's log after. */
async function runOnce(seed: number, started: { kafka?: KafkaFixture }): Promise<void> {
  const topics = Object.fromEntries(NODES.map((n) => [TOPIC(n), PARTITIONS]));
  const [kafka, mongo] = await Promise.all([startKafka({ topics }), startMongo()]);
  started.kafka = kafka;
  const dir = mkdtempSync(join(tmpdir(), 'streamfold-scale-out-'));
  const instances: Instance[] = [];
  const output = createKafkaBroker({ properties: kafka.properties }).consumer({
    groupId: `scale-out-reader-${seed}`,
    properties: kafka.properties,
  });
  const last = new Map<string, [ConsumedMessage | undefined, ConsumedMessage]>();
  let reading = true;
  let reader: Promise<void> = Promise.resolve();
  try {
    const ports = await freePorts(2);
    const configOf = (port: number) =>
      configFor(DIAMOND, (d) => {
        d.id = 'scaleOut21';
        d.connections.main.config = kafka.properties;
        for (const [node, consumer] of Object.entries(d.consumers.config))
          Object.assign(consumer as object, { topic: kafka.topic(TOPIC(node)) }, FAST_GROUP);
        d.producer.config.topic = kafka.topic(TOPIC('output'));
        d.processor.persistence.config = {
          url: { type: 'env', key: 'TEST_MONGODB_URL' },
          database: mongo.database,
        };
        d.processor.internalUpdates.config.topic = kafka.topic(TOPIC('internal'));
        d.processor.internalUpdates.config.consumer = { commitIntervalMs: 0, ...FAST_GROUP };
        d.server = { ip: '127.0.0.1', port, apiPrefix: '/api' };
      });
    const [first, second] = [configOf(ports[0] as number), configOf(ports[1] as number)];
    instances.push(startInstance(first, dir, 'first', mongo.url, ports[0] as number));
    instances.push(startInstance(second, dir, 'second', mongo.url, ports[1] as number));
    const [survivor, victim] = instances as [Instance, Instance];
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
    output.subscribe([kafka.topic(TOPIC('output'))]);
    reader = (async () => {
      while (reading) {
        for (const m of await output.consume(500, 200)) {
          const key = m.key?.toString() ?? '';
          last.set(key, [last.get(key)?.[1], m]);
        }
      }
    })();

    const producer = createKafkaBroker({ properties: kafka.properties }).producer({
      properties: kafka.properties,
    });
    await producer.connect();
    const events = diamondEvents(seed, EVENTS, 0.25);
    const send = (batch: readonly InputEvent[]) =>
      Promise.all(
        batch.map((e) =>
          producer.produce({
            topic: kafka.topic(TOPIC(e.topic)),
            key: Buffer.from(JSON.stringify(e.key)),
            value: Buffer.from(JSON.stringify(e.value)),
          }),
        ),
      );
    const third = Math.floor(EVENTS / 3);
    await send(events.slice(0, third));
    // Both instances must own partitions of the inputs and of the internal updates: the victim
    // dies with work of its own in flight or uncommitted, which the survivor must take over.
    for (const instance of instances)
      await until(
        'both instances consumed input and recomputed heads',
        async () =>
          (await metricSum(instance, 'streamfold_consumed_messages_total')) > 0 &&
          (await metricSum(instance, 'streamfold_head_recomputes_total')) > 0,
        120_000,
        logsOf,
      );
    victim.child.kill('SIGKILL');
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
    // The survivor's lag per pipeline and partition (refreshed every 5 s): every partition of
    // every topic is its own once the victim's session expired, and all of it is committed.
    let lagging = 'no lag reported yet';
    const caughtUp = async () => {
      const text = await (await fetch(`${survivor.base}/-/metrics`)).text();
      const series = text.split('\n').filter((line) => line.startsWith('streamfold_consumer_lag{'));
      const behind = series.filter((line) => Number(line.split(' ').at(-1)) !== 0);
      lagging = `${series.length} partitions owned, behind: ${behind.join(', ') || 'none'}`;
      return series.length === PIPELINES * PARTITIONS && behind.length === 0;
    };
    const report = () => {
      const wrong = [...expected.keys(), ...last.keys()].filter((ck, i, all) => all.indexOf(ck) === i);
      const lines = wrong.map((ck) => {
        const [before, final] = last.get(ck) ?? [undefined, undefined];
        const text = (m?: ConsumedMessage) =>
          m ? (m.value?.toString().slice(0, 120) ?? 'tombstone') : 'none';
        return `${ck}: expected ${expected.has(ck) ? 'r' : 'd + tombstone'}; last two: ${text(before)} | ${text(final)}`;
      });
      return `\nsurvivor lag: ${lagging}\n${lines.join('\n')}${logsOf()}`;
    };
    // All input committed (so every output it causes is out), then the output per key checked.
    await until('the survivor has committed all input and internal updates', caughtUp, 240_000, report);
    await until('the output converged', async () => converged(), 30_000, report);
    assert.ok(survivor.child.exitCode === null, `the survivor is still running${logsOf()}`);
  } finally {
    reading = false;
    await reader.catch(() => {});
    await output.disconnect().catch(() => {});
    for (const instance of instances) instance.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    await Promise.allSettled([kafka.stop(), mongo.stop()]);
  }
}

test('two instances, one SIGKILLed a third of the way: every head key ends on the final store state', async () => {
  const firstSeed = Number(process.env.SCALE_OUT_SEED ?? 21);
  for (let run = 0; run < REPEAT; run++) {
    const started = Date.now();
    const fixtures: { kafka?: KafkaFixture } = {};
    await repeatOnStandInDefect(
      {
        what: `scale-out run ${run + 1}`,
        attempts: 3,
        defect: (error) => fixtures.kafka?.defect(error) ?? null,
      },
      () => runOnce(firstSeed + run, fixtures),
    );
    console.log(
      `scale-out run ${run + 1}/${REPEAT} (seed ${firstSeed + run}) passed in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
  }
});

test.run();
