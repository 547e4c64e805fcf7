/**
 * The failover tests' three-node cluster (issue 28): one per test file, started through the test
 * fixture (`own: { nodes: 3 }`, replication factor 3, `min.insync.replicas=2`), so the run's shared
 * broker is never disturbed. Each run of a file creates fresh topics on it, kills nodes, and
 * `restore` brings every node back and waits until every replica of its topics is in sync again,
 * so the next run starts from a whole cluster. `rollingRestart` restarts every node in turn, as an
 * upgrade does.
 *
 * @example
 *   const kafka = await startFailoverCluster();
 *   const topics = await freshTopics(kafka, { orders: 3 });
 *   const victim = await leaderOf(kafka, topics.orders, 0);
 *   await kafka.cluster.node(victim).kill();
 *   await restore(kafka, Object.values(topics));
 */
import { randomBytes } from 'node:crypto';
import Kafka from 'node-rdkafka';
import { clusterMetadata, createTopics, deleteTopics, type PartitionState } from '../../local-kafka/admin.ts';
import type { LocalKafka } from '../../local-kafka/cluster.ts';
import { backends } from '../support/backends.ts';
import { type KafkaFixture, startKafka } from '../support/kafka.ts';

export type FailoverCluster = KafkaFixture & { readonly cluster: LocalKafka };

/** Why the failover tests cannot run here, or null: they need nodes to kill, the local Apache Kafka. */
export async function failoverUnavailable(): Promise<string | null> {
  const kind = (await backends()).kafka.kind;
  return kind === 'local' ? null : `needs the local Apache Kafka to kill its nodes (Kafka is ${kind} here)`;
}

export async function startFailoverCluster(): Promise<FailoverCluster> {
  const kafka = await startKafka({ topics: {}, own: { nodes: 3 } });
  if (!kafka.cluster) throw new Error('startKafka gave no cluster of the test’s own');
  return kafka as FailoverCluster;
}

/** Creates topics with unique names (name → partitions); returns name → actual name. */
export async function freshTopics<T extends string>(
  kafka: FailoverCluster,
  topics: Readonly<Record<T, number>>,
): Promise<Record<T, string>> {
  const suffix = `-${randomBytes(4).toString('hex')}`;
  const names = Object.fromEntries(Object.keys(topics).map((name) => [name, name + suffix])) as Record<
    T,
    string
  >;
  await createTopics(
    kafka.brokers,
    Object.fromEntries(Object.entries<number>(topics).map(([name, n]) => [names[name as T], n])),
  );
  await until('the new topics have leaders', async () =>
    (await partitionsOf(kafka, Object.values(names))).every((p) => p.leader >= 0),
  );
  return names;
}

/** Every partition of `topics`, as a fresh client's metadata request reports them. */
export async function partitionsOf(
  kafka: FailoverCluster,
  topics: readonly string[],
): Promise<(PartitionState & { topic: string })[]> {
  const { partitions } = await clusterMetadata(kafka.brokers);
  return topics.flatMap((topic) => {
    const states = partitions.get(topic);
    if (!states?.length) throw new Error(`no metadata for topic ${topic} yet`);
    return states.map((state) => ({ ...state, topic }));
  });
}

/** The node leading `partition` of `topic` now. */
export async function leaderOf(kafka: FailoverCluster, topic: string, partition: number): Promise<number> {
  const state = (await partitionsOf(kafka, [topic])).find((p) => p.partition === partition);
  if (!state || state.leader < 0) throw new Error(`${topic}[${partition}] has no leader`);
  return state.leader;
}

/** The group coordinators' topic; the local cluster gives it one partition, so one node coordinates every group. */
const COORDINATORS = '__consumer_offsets';

/**
 * The node leading the most partitions of `topics` and of the consumer groups' offsets (so of
 * equal leaders, the groups' coordinator; else the first by id): the costliest to lose.
 */
export async function busiestLeader(kafka: FailoverCluster, topics: readonly string[]): Promise<number> {
  const led = new Map<number, number>();
  for (const { leader } of await partitionsOf(kafka, [...topics, COORDINATORS]))
    led.set(leader, (led.get(leader) ?? 0) + 1);
  const [node] = [...led].sort(([a, n], [b, m]) => m - n || a - b)[0] ?? [];
  if (node === undefined || node < 0) throw new Error(`no leader among ${topics.join(', ')}`);
  return node;
}

/**
 * How far the consumer group `groupId` is behind the end of `topic`, summed over its partitions
 * (a partition it never committed counts whole): 0 means nothing would be delivered to it again.
 */
export async function groupLag(
  kafka: FailoverCluster,
  groupId: string,
  topic: string,
  partitions: number,
): Promise<number> {
  // Never subscribes: it only asks the coordinator for the group's offsets, so it joins nothing.
  const client = new Kafka.KafkaConsumer({ 'bootstrap.servers': kafka.brokers, 'group.id': groupId }, {});
  await new Promise<void>((done, fail) =>
    client.connect({ timeout: 10_000 }, (err) => (err ? fail(new Error(err.message)) : done())),
  );
  try {
    const toppars = Array.from({ length: partitions }, (_, partition) => ({ topic, partition }));
    const committed = await new Promise<Kafka.TopicPartitionOffset[]>((done, fail) =>
      client.committed(toppars, 10_000, (err, offsets) =>
        err ? fail(new Error(err.message)) : done(offsets),
      ),
    );
    let lag = 0;
    for (const { partition, offset } of committed) {
      const { highOffset } = await new Promise<Kafka.WatermarkOffsets>((done, fail) =>
        client.queryWatermarkOffsets(topic, partition, 10_000, (err, offsets) =>
          err ? fail(new Error(err.message)) : done(offsets),
        ),
      );
      // A partition the group never committed has a negative (or, with a partition error, no) offset.
      lag += highOffset - (typeof offset === 'number' && offset > 0 ? offset : 0);
    }
    return lag;
  } finally {
    await new Promise((done) => client.disconnect(done));
  }
}

/** Starts every stopped node, then waits until every partition of `topics` has all its replicas in sync. */
export async function restore(kafka: FailoverCluster, topics: readonly string[]): Promise<void> {
  await Promise.all(kafka.cluster.nodes.filter((n) => !n.running()).map((n) => n.start()));
  await until('every replica is back in sync', async () =>
    (await partitionsOf(kafka, topics)).every((p) => p.leader >= 0 && p.isr.length === p.replicas.length),
  );
}

/**
 * `restore`, then deletes `topics`: a run that rolls the whole cluster leaves it as it found it, so
 * every run's roll moves the same partitions (each run's topics would otherwise add to the next
 * runs' controlled shutdowns and catch-ups).
 */
export async function dropTopics(kafka: FailoverCluster, topics: readonly string[]): Promise<void> {
  await restore(kafka, topics);
  await deleteTopics(kafka.brokers, topics);
}

/** One step of a rolling restart: a node's controlled shutdown, its start, or its replicas' catch-up. */
export type RollStep = `${'stop' | 'start' | 'sync'} node ${number}`;

/**
 * A rolling restart, as an upgrade does it: each node in turn (by id) SIGTERMed (Kafka's
 * controlled shutdown: its leaderships move to the others before it exits) and started again on
 * the same ports and data; the next node only once every partition of the cluster (the consumer
 * groups' offsets included) has all its replicas in sync again. `during` runs alongside each step
 * (the workload's share of it) and is awaited with it. A node that did not shut down under control
 * (killed by the stop's 30 s bound) fails the roll: that would be a crash, not a restart.
 * Returns what it did, with each step's duration.
 */
export async function rollingRestart(
  kafka: FailoverCluster,
  during: (step: RollStep) => Promise<void> = async () => {},
): Promise<string> {
  const steps: string[] = [];
  const timed = async (step: RollStep, action: () => Promise<void>) => {
    const started = Date.now();
    await Promise.all([action(), during(step)]);
    steps.push(`${step} ${((Date.now() - started) / 1000).toFixed(1)} s`);
  };
  for (const node of kafka.cluster.nodes) {
    await wholeCluster(kafka);
    await timed(`stop node ${node.id}`, async () => {
      // A JVM ended by SIGTERM exits with 143 once its shutdown hooks (Kafka's shutdown, the
      // controlled shutdown first) have run; SIGKILLed, it did not finish within the stop's bound.
      const exit = await node.stop();
      if (exit?.code !== 143)
        throw new Error(
          `node ${node.id} did not shut down under control: ${JSON.stringify(exit)}, ${node.logFile}`,
        );
    });
    await timed(`start node ${node.id}`, () => node.start());
    await timed(`sync node ${node.id}`, () => wholeCluster(kafka));
  }
  return steps.join(', ');
}

/** Until every broker is registered and every partition of the cluster has all its replicas in sync. */
async function wholeCluster(kafka: FailoverCluster): Promise<void> {
  let state = 'no answer';
  await until(
    'every node is up and every replica of the cluster is in sync',
    async () => {
      const { brokers, partitions } = await clusterMetadata(kafka.brokers);
      const behind = [...partitions].flatMap(([topic, states]) =>
        states
          .filter((p) => p.leader < 0 || p.isr.length < p.replicas.length)
          .map((p) => `${topic}[${p.partition}]`),
      );
      state = `${brokers.length} brokers, out of sync: ${behind.slice(0, 10).join(', ') || 'none'}`;
      return brokers.length === kafka.cluster.nodes.length && behind.length === 0;
    },
    90_000,
    () => `; ${state}`,
  );
}

/** Waits for `condition`, polling every 250 ms, at most `timeoutMs` (bounded: a start on two busy cores). */
export async function until(
  what: string,
  condition: () => Promise<boolean> | boolean,
  timeoutMs = 90_000,
  detail: () => string = () => '',
): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !(await Promise.resolve(condition()).catch(() => false)); ) {
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting until ${what}${detail()}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
