/**
 * Scaling out, then losing an instance (issue 21): two `streamfold run` processes share one Kafka
 * (3 partitions per topic) and one MongoDB (`two-instances.ts`); once both have worked on their
 * partitions, one is SIGKILLed a third of the way through the input; the survivor takes its
 * partitions over when its session times out, and every head key must end on the final store
 * state. Internal updates travel as many-key messages, one per partition per batch. REPEAT=n runs
 * it n times (durations printed), SCALE_OUT_SEED picks the seed.
 */
import { type KafkaFixture, startKafka } from '../../support/kafka.ts';
import { startMongo } from '../../support/mongo.ts';
import { repeatOnStandInDefect } from '../../support/retry.ts';
import { test } from '../../support/suite.ts';
import { NODES, PARTITIONS, runTwoInstances } from './two-instances.ts';

const REPEAT = Number(process.env.REPEAT ?? 1);
const EVENTS = 450;
/** Long topic names: librdkafka 2.12 mis-parses Mokapi's metadata of many short ones (test-infra.md). */
const TOPIC = (node: string) => `scale-out-${node}-topic`;
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
  try {
    await runTwoInstances({
      properties: kafka.properties,
      topic: (node) => kafka.topic(TOPIC(node)),
      mongo,
      seed,
      events: EVENTS,
      consumerProperties: FAST_GROUP,
      disturb: async ([, victim]) => {
        victim.child.kill('SIGKILL');
      },
      survivors: ([survivor]) => [survivor],
    });
  } finally {
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
