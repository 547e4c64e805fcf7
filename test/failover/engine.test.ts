/**
 * Issue 28 (a): two engine instances on a three-node cluster (replication factor 3,
 * `min.insync.replicas=2`) while the node leading the most of their partitions is SIGKILLed a
 * third of the way through the input (`test/engine/cli/two-instances.ts`). The partitions get new
 * leaders, both instances go on, and every head key ends on the aggregate of an undisturbed run
 * (one embedded engine, checked against the oracle). REPEAT=n runs it n times on the file's cluster.
 */

import { NODES, PARTITIONS, runTwoInstances } from '../engine/cli/two-instances.ts';
import { startMongo } from '../support/mongo.ts';
import { busiestLeader, type FailoverCluster, freshTopics, partitionsOf, restore } from './cluster.ts';
import { failoverTest } from './repeat.ts';

const EVENTS = 450;
/** FAILOVER_SEED picks the first run's seed. */
const FIRST_SEED = Number(process.env.FAILOVER_SEED ?? 28);

async function runOnce(kafka: FailoverCluster, run: number): Promise<string> {
  const seed = FIRST_SEED + run;
  const topics = await freshTopics(
    kafka,
    Object.fromEntries(NODES.map((n) => [`failover-${n}`, PARTITIONS])),
  );
  const names = Object.values(topics);
  const mongo = await startMongo();
  let note = '';
  try {
    await runTwoInstances({
      properties: kafka.properties,
      topic: (node) => topics[`failover-${node}`]!,
      mongo,
      seed,
      events: EVENTS,
      disturb: async () => {
        const victim = await busiestLeader(kafka, names);
        const led = (await partitionsOf(kafka, names)).filter((p) => p.leader === victim).length;
        await kafka.cluster.node(victim).kill();
        note = `node ${victim}, leading ${led} of ${names.length * PARTITIONS} partitions, SIGKILLed`;
      },
      survivors: (instances) => instances,
    });
  } finally {
    await mongo.stop();
  }
  await restore(kafka, names);
  return note;
}

await failoverTest(
  'two instances, the busiest partition leader SIGKILLed a third of the way: the aggregates of an undisturbed run',
  'engine failover',
  runOnce,
);
