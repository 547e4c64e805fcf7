/**
 * The few admin calls the local cluster's users need (the CLI's `--topics`, tests, benchmarks),
 * through node-rdkafka's own clients: a fresh client per call, as a new user's would be.
 *
 * @example
 *   await createTopics('127.0.0.1:9092', { orders: 4 });
 *   const { brokers, topics } = await clusterMetadata('127.0.0.1:9092');
 */
import Kafka from 'node-rdkafka';

export interface ClusterMetadata {
  /** Node ids of the brokers that answer. */
  readonly brokers: readonly number[];
  /** Topic name → partition count (internal topics included). */
  readonly topics: ReadonlyMap<string, number>;
  /** Topic name → its partitions, in partition order (failover tests find leaders with it). */
  readonly partitions: ReadonlyMap<string, readonly PartitionState[]>;
}

/** One partition as the answering broker knows it; `leader` is -1 while it has none. */
export interface PartitionState {
  readonly partition: number;
  readonly leader: number;
  readonly replicas: readonly number[];
  /** The in-sync replicas. */
  readonly isr: readonly number[];
}

/** One metadata request from a fresh client; rejects when no broker answers within `timeoutMs`. */
export function clusterMetadata(
  bootstrap: string,
  timeoutMs = 5000,
  properties: Readonly<Record<string, string>> = {},
): Promise<ClusterMetadata> {
  const client = new Kafka.Producer({ ...properties, 'bootstrap.servers': bootstrap });
  return new Promise((done, fail) => {
    client.connect({ timeout: timeoutMs }, (err, metadata) => {
      // A client that failed to connect throws on disconnect ("Producer not connected").
      if (client.isConnected()) client.disconnect(() => {});
      if (err) fail(new Error(err.message));
      else
        done({
          brokers: metadata.brokers.map((b) => b.id),
          topics: new Map(metadata.topics.map((t) => [t.name, t.partitions.length])),
          partitions: new Map(
            metadata.topics.map((t) => [
              t.name,
              t.partitions
                .map((p) => ({ partition: p.id, leader: p.leader, replicas: p.replicas, isr: p.isrs }))
                .sort((a, b) => a.partition - b.partition),
            ]),
          ),
        });
    });
  });
}

/**
 * Creates each topic with its partition count and the cluster's default replication factor, and
 * resolves once a fresh client's metadata shows them all (the controller accepts a topic before
 * every broker knows it); a topic that exists already is left as it is. `config` applies to every
 * topic created.
 */
export async function createTopics(
  bootstrap: string,
  topics: Readonly<Record<string, number>>,
  options: { config?: Readonly<Record<string, string>>; properties?: Readonly<Record<string, string>> } = {},
): Promise<void> {
  const admin = Kafka.AdminClient.create({ ...options.properties, 'bootstrap.servers': bootstrap });
  try {
    for (const [topic, partitions] of Object.entries(topics)) {
      await new Promise<void>((done, fail) =>
        admin.createTopic(
          { topic, num_partitions: partitions, replication_factor: -1, config: { ...options.config } },
          30_000,
          (err) => {
            if (!err || err.code === Kafka.CODES.ERRORS.ERR_TOPIC_ALREADY_EXISTS) done();
            else fail(new Error(`creating topic ${topic} on ${bootstrap}: ${err.message}`));
          },
        ),
      );
    }
  } finally {
    admin.disconnect();
  }
  await waitForTopics(bootstrap, Object.keys(topics), 30_000, options.properties);
}

/** Until a fresh client's metadata lists every topic of `topics`, within `timeoutMs`. */
export async function waitForTopics(
  bootstrap: string,
  topics: readonly string[],
  timeoutMs: number,
  properties: Readonly<Record<string, string>> = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let missing: readonly string[] = topics;
  while (missing.length > 0) {
    if (Date.now() > deadline)
      throw new Error(`topics not visible on ${bootstrap} after ${timeoutMs} ms: ${missing.join(', ')}`);
    try {
      const known = (await clusterMetadata(bootstrap, 5000, properties)).topics;
      missing = topics.filter((topic) => !known.has(topic));
    } catch {
      // No broker answered this time; the deadline bounds the retries.
    }
    if (missing.length > 0) await new Promise((r) => setTimeout(r, 100));
  }
}

export async function deleteTopics(
  bootstrap: string,
  topics: readonly string[],
  properties: Readonly<Record<string, string>> = {},
): Promise<void> {
  const admin = Kafka.AdminClient.create({ ...properties, 'bootstrap.servers': bootstrap });
  try {
    await Promise.all(
      topics.map((topic) => new Promise<void>((done) => admin.deleteTopic(topic, 30_000, () => done()))),
    );
  } finally {
    admin.disconnect();
  }
}
