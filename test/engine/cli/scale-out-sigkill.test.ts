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
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { configFor, DIAMOND } from '../../support/configs.ts';
import { embeddedAggregates, readOutput, sendEvents } from '../../support/converge.ts';
import {
  diamondRunConfig,
  type Instance,
  logsOf,
  metricSum,
  startInstance,
} from '../../support/instances.ts';
import { type KafkaFixture, startKafka } from '../../support/kafka.ts';
import { startMongo } from '../../support/mongo.ts';
import { freePorts } from '../../support/process.ts';
import { diamondEvents } from '../../support/random-events.ts';
import { repeatOnStandInDefect } from '../../support/retry.ts';
import { test } from '../../support/suite.ts';
import { until } from '../../support/until.ts';

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

/** One run on fresh topics and its own jongodb; `started.kafka` lets the caller read Mokapi's log after. */
async function runOnce(seed: number, started: { kafka?: KafkaFixture }): Promise<void> {
  const topics = Object.fromEntries(NODES.map((n) => [TOPIC(n), PARTITIONS]));
  const [kafka, mongo] = await Promise.all([startKafka({ topics }), startMongo()]);
  started.kafka = kafka;
  const dir = mkdtempSync(join(tmpdir(), 'streamfold-scale-out-'));
  const instances: Instance[] = [];
  const output = await readOutput(kafka, kafka.topic(TOPIC('output')), `scale-out-reader-${seed}`);
  try {
    const ports = await freePorts(2);
    const configOf = (port: number) =>
      diamondRunConfig({
        id: 'scaleOut21',
        kafka,
        mongo,
        topic: (node) => kafka.topic(TOPIC(node)),
        port,
        consumer: FAST_GROUP,
      });
    instances.push(startInstance(configOf(ports[0] as number), dir, 'first', mongo.url));
    instances.push(startInstance(configOf(ports[1] as number), dir, 'second', mongo.url));
    const [survivor, victim] = instances as [Instance, Instance];
    const logs = () => logsOf(instances);
    for (const instance of instances)
      await until(
        'both instances are ready',
        async () => (await fetch(`${instance.base}/-/ready`)).status === 200,
        120_000,
        logs,
      );

    const events = diamondEvents(seed, EVENTS, 0.25);
    const send = (batch: typeof events) => sendEvents(kafka, (node) => kafka.topic(TOPIC(node)), batch);
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
        logs,
      );
    victim.child.kill('SIGKILL');
    await send(events.slice(third));

    const expected = await embeddedAggregates(configFor(DIAMOND), events, PARTITIONS);
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
    const report = () => `\nsurvivor lag: ${lagging}${output.report(expected)}${logs()}`;
    // All input committed (so every output it causes is out), then the output per key checked.
    await until('the survivor has committed all input and internal updates', caughtUp, 240_000, report);
    await until('the output converged', () => output.converged(expected), 30_000, report);
    assert.ok(survivor.child.exitCode === null, `the survivor is still running${logs()}`);
  } finally {
    await output.stop();
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
