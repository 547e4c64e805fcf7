/**
 * Issue 35: a rolling restart of the three-node cluster (replication factor 3,
 * `min.insync.replicas=2`) under load, as an upgrade does it (`cluster.ts` `rollingRestart`: each
 * node in turn SIGTERMed, its controlled shutdown completed, started again, and the next one only
 * once every replica of the cluster is back in sync). Three workloads go through the same roll
 * (one roll per run: a roll is three JVM restarts, the costliest part of the run):
 * - engine: two `streamfold run` instances (`test/engine/cli/two-instances.ts`) on seeded events, a
 *   third before the roll, a part during each step of it, the rest after; every head key ends on
 *   the aggregate of an undisturbed run (one embedded engine, checked against the oracle);
 * - REST-to-broker with its own producer: four clients post without pause from before the roll to
 *   after it, each request a record of its own id, on a topic with a partition led by each node.
 *   A request during the roll may be answered 503, never anything else, none later than the
 *   produce timeout allows, none answered 503 outside the roll; after it, 204 again; every request
 *   answered 204 is on the topic (read back from offset 0);
 * - the notification service's Kafka intake: events with ids (one in five twice), a third before
 *   the roll, a part during each step, the rest after; once the group has committed the whole
 *   topic, every event is stored once, PROCESSED, and its email sent exactly once.
 * Each client the watchdog replaced (librdkafka#5301) must be both counted
 * (`streamfold_kafka_clients_replaced_total`) and logged by its component; each run says how many,
 * and REST's answers per step of the roll. Each run deletes its topics at the end, so every run's
 * roll moves the same partitions. `ROLLING_WORKLOADS=engine,rest2broker,notification`
 * picks some of them (default all); REPEAT=n runs it n times on the file's cluster.
 */
import * as assert from 'node:assert/strict';
import { NODES, PARTITIONS, runTwoInstances } from '../engine/cli/two-instances.ts';
import { metricLines } from '../support/instances.ts';
import { startMongo } from '../support/mongo.ts';
import {
  dropTopics,
  type FailoverCluster,
  freshTopics,
  type RollStep,
  rollingRestart,
  until,
} from './cluster.ts';
import { EVENTS as INTAKE_EVENTS, startIntake } from './notification-intake.ts';
import { failoverTest } from './repeat.ts';
import {
  ANSWER_MARGIN_MS,
  expectAcknowledgedOnTopic,
  PRODUCE_TIMEOUT_MS,
  startClients,
  startRest2Broker,
  statusCounts,
} from './rest2broker-clients.ts';
import { watchdogEvidence } from './watchdog-evidence.ts';

const ALL = ['engine', 'rest2broker', 'notification'] as const;
type Workload = (typeof ALL)[number];
const WORKLOADS = new Set(
  (process.env.ROLLING_WORKLOADS?.split(',').map((w) => w.trim()) ?? ALL).filter((w) => w !== ''),
);
for (const w of WORKLOADS)
  if (!ALL.includes(w as Workload))
    throw new Error(`ROLLING_WORKLOADS: no workload "${w}" (${ALL.join(', ')})`);

/** The engine's input events. */
const ENGINE_EVENTS = 450;
/** FAILOVER_SEED picks the first run's seed. */
const FIRST_SEED = Number(process.env.FAILOVER_SEED ?? 35);
/** REST's topic: a partition led by each node. */
const ORDERS_PARTITIONS = 3;
/** Answers 204 waited for before the roll and after it. */
const ENOUGH = 10;

/** A part of `left` per step of the roll: 3 steps per node (stop, start, catch-up). */
const partPerStep = (kafka: FailoverCluster, left: number) =>
  Math.ceil(left / (3 * kafka.cluster.nodes.length));

/** The roll's steps as they began, and its end. */
interface RollTimes {
  readonly steps: { step: RollStep; from: number }[];
  began: number;
  ended: number;
}

/** REST-to-broker: the service and its clients, posting from now on; `check` after the roll. */
async function startRestLoad(kafka: FailoverCluster) {
  const topics = await freshTopics(kafka, { orders: ORDERS_PARTITIONS });
  const service = await startRest2Broker(kafka, topics.orders);
  const clients = startClients(service.base);
  const acknowledgedSince = (from: number) => clients.since(from).filter((a) => a.status === 204).length;
  const begun = Date.now();
  await until(
    'REST answers 204 on a whole cluster',
    () => acknowledgedSince(begun) >= ENOUGH,
    60_000,
    clients.summary(begun),
  );
  return {
    topic: topics.orders,
    async check(roll: RollTimes): Promise<string> {
      await until(
        'REST answers 204 again after the roll',
        () => acknowledgedSince(roll.ended) >= ENOUGH,
        60_000,
        clients.summary(roll.ended),
      );
      await clients.stop();
      const { answers } = clients;
      const inRoll = (a: { started: number }) => a.started >= roll.began && a.started < roll.ended;
      assert.deepEqual(
        answers
          .filter((a) => a.status !== 204 && a.status !== 503)
          .map((a) => `${a.id}: ${a.status} ${a.body}`),
        [],
        'REST: every request is answered 204, or 503 during the roll',
      );
      assert.deepEqual(
        answers.filter((a) => a.status === 503 && !inRoll(a)).map((a) => `${a.id}: ${a.body}`),
        [],
        'REST: no 503 outside the roll',
      );
      assert.deepEqual(
        answers
          .filter((a) => a.ms > PRODUCE_TIMEOUT_MS + ANSWER_MARGIN_MS)
          .map((a) => `${a.id}: ${a.ms} ms, ${a.status}`),
        [],
        'REST: every answer within the produce timeout',
      );
      const watchdog = watchdogEvidence('rest2broker', await service.metrics(), service.log());
      const acknowledged = answers.filter((a) => a.status === 204).map((a) => a.id);
      await expectAcknowledgedOnTopic(kafka, topics.orders, ORDERS_PARTITIONS, acknowledged);
      const during = answers.filter(inRoll);
      const perStep = roll.steps.map(({ step, from }, i) => {
        const to = roll.steps[i + 1]?.from ?? roll.ended;
        return `${step} ${JSON.stringify(statusCounts(during.filter((a) => a.started >= from && a.started < to)))}`;
      });
      return (
        `REST: ${acknowledged.length} acknowledged and on the topic, ${during.length} requests during the roll ` +
        `${JSON.stringify(statusCounts(during))} (${perStep.join(', ')}); watchdog replaced: ${watchdog}`
      );
    },
    async close() {
      await clients.stop();
      await service.close();
    },
  };
}

/** The notification intake, its first third sent and notified; a part per step; `check` after the roll. */
async function startIntakeLoad(kafka: FailoverCluster, run: number) {
  const intake = await startIntake(kafka, run);
  try {
    const { events } = intake;
    let sent = Math.floor(events.length / 3);
    await intake.send(events.slice(0, sent));
    await until('the intake sent its first notifications', () => intake.emails() > 0);
    const part = partPerStep(kafka, events.length - sent);
    return {
      async during(): Promise<void> {
        const from = sent;
        sent = Math.min(events.length, sent + part);
        await intake.send(events.slice(from, sent));
      },
      async check(): Promise<string> {
        await intake.send(events.slice(sent));
        const watchdog = await intake.checkHandledOnce();
        return `notification: ${events.length} events (${INTAKE_EVENTS} distinct) handled once each; watchdog replaced: ${watchdog}`;
      },
      topics: intake.topics,
      close: () => intake.close(),
    };
  } catch (error) {
    await intake.close();
    throw error;
  }
}

/**
 * The engine's two instances, with the roll (and the other workloads' parts) run a third of the
 * way through its input; the engine's own part of the input sent during each step.
 */
async function runEngine(
  kafka: FailoverCluster,
  run: number,
  roll: (during: (step: RollStep) => Promise<void>) => Promise<void>,
): Promise<string> {
  const seed = FIRST_SEED + run;
  const topics = await freshTopics(kafka, Object.fromEntries(NODES.map((n) => [`rolling-${n}`, PARTITIONS])));
  const mongo = await startMongo();
  let watchdog = '';
  try {
    await runTwoInstances({
      properties: kafka.properties,
      topic: (node) => topics[`rolling-${node}`]!,
      mongo,
      seed,
      events: ENGINE_EVENTS,
      disturb: async (_instances, feed) => {
        const part = partPerStep(kafka, feed.left);
        await roll(() => feed.send(part));
      },
      survivors: (instances) => instances,
      converged: async (instances) => {
        const notes = await Promise.all(
          instances.map(async (instance, i) =>
            watchdogEvidence(
              `instance ${i + 1}`,
              (await metricLines(instance, 'streamfold_kafka_clients_replaced_total')).join('\n'),
              instance.output(),
            ),
          ),
        );
        watchdog = notes.join(', ');
      },
    });
  } finally {
    await mongo.stop();
    await dropTopics(kafka, Object.values(topics));
  }
  return `engine (seed ${seed}): the aggregates of an undisturbed run; watchdog replaced: ${watchdog}`;
}

async function runOnce(kafka: FailoverCluster, run: number): Promise<string> {
  const rest = WORKLOADS.has('rest2broker') ? await startRestLoad(kafka) : undefined;
  let intake: Awaited<ReturnType<typeof startIntakeLoad>> | undefined;
  try {
    intake = WORKLOADS.has('notification') ? await startIntakeLoad(kafka, run) : undefined;
    const times: RollTimes = { steps: [], began: 0, ended: 0 };
    let rolled = '';
    const roll = async (engineDuring?: (step: RollStep) => Promise<void>) => {
      times.began = Date.now();
      rolled = await rollingRestart(kafka, async (step) => {
        times.steps.push({ step, from: Date.now() });
        await Promise.all([engineDuring?.(step), intake?.during()]);
      });
      times.ended = Date.now();
    };
    const notes: string[] = [];
    if (WORKLOADS.has('engine')) notes.push(await runEngine(kafka, run, roll));
    else await roll();
    if (rest) notes.push(await rest.check(times));
    if (intake) notes.push(await intake.check());
    return [...notes, `roll: ${rolled}`].join(' || ');
  } finally {
    await rest?.close();
    await intake?.close();
    await dropTopics(kafka, [...(rest ? [rest.topic] : []), ...(intake ? Object.values(intake.topics) : [])]);
  }
}

await failoverTest(
  `a rolling restart of every broker under load (${[...WORKLOADS].join(', ')}): engine aggregates of an undisturbed run, every REST 204 on the topic, every event handled once`,
  'rolling restart',
  runOnce,
);
