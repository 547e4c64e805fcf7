/**
 * Issue 28 (c): the notification service's Kafka intake on a three-node cluster (replication
 * factor 3, `min.insync.replicas=2`). Events with ids go to a three-partition topic, one in five
 * of them twice; once the intake has sent the first notifications, the node leading the most of
 * the partitions (the consumer group's coordinator among equals) is SIGKILLed, and the rest is
 * sent. The intake must go on and, once its group has committed the whole topic (nothing left to
 * deliver again), have handled every event exactly once: each event PROCESSED and its email sent
 * once, redeliveries and duplicates included, as its idempotency (the event id) promises.
 * REPEAT=n runs it n times on the file's cluster.
 */
import { busiestLeader, type FailoverCluster, partitionsOf, until } from './cluster.ts';
import { EVENTS, startIntake } from './notification-intake.ts';
import { failoverTest } from './repeat.ts';

async function runOnce(kafka: FailoverCluster, run: number): Promise<string> {
  const intake = await startIntake(kafka, run);
  try {
    const { events, topics } = intake;
    const third = Math.floor(events.length / 3);
    await intake.send(events.slice(0, third));
    await until('the intake sent its first notifications', () => intake.emails() > 0);

    const victim = await busiestLeader(kafka, [topics.events]);
    const coordinator = (await partitionsOf(kafka, ['__consumer_offsets']))[0]!.leader === victim;
    await kafka.cluster.node(victim).kill();
    await intake.send(events.slice(third));

    const watchdog = await intake.checkHandledOnce();
    return `${events.length} events (${EVENTS} distinct) handled once each; node ${victim}${coordinator ? ', the group coordinator,' : ''} SIGKILLed; clients replaced by the watchdog: ${watchdog}`;
  } finally {
    await intake.close();
  }
}

await failoverTest(
  'Kafka intake, the busiest partition leader SIGKILLed mid-stream: every event handled exactly once',
  'notification failover',
  runOnce,
);
