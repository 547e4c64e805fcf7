/**
 * A consumer group's committed offsets and a topic's end offsets, read the way a user's tooling
 * would: a fresh librdkafka client that does not join the group (an OffsetFetch, a ListOffsets).
 *
 * @example
 *   const committed = await committedOffsets(kafka.brokers, 'my-group', kafka.topic('orders'), 3);
 *   // [12, 7, -1]: partition 2 has no committed offset
 */
import Kafka from 'node-rdkafka';

const TIMEOUT_MS = 10_000;

/** Per partition, the group's committed offset (the next one to read), -1 where it has none. */
export async function committedOffsets(
  brokers: string,
  groupId: string,
  topic: string,
  partitions: number,
): Promise<number[]> {
  const client = new Kafka.KafkaConsumer({ 'bootstrap.servers': brokers, 'group.id': groupId }, {});
  await new Promise<void>((done, fail) =>
    client.connect({ timeout: TIMEOUT_MS }, (err) => (err ? fail(err) : done())),
  );
  try {
    const wanted = Array.from({ length: partitions }, (_, partition) => ({ topic, partition }));
    const offsets = await new Promise<Kafka.TopicPartitionOffset[]>((done, fail) =>
      client.committed(wanted, TIMEOUT_MS, (err, result) => (err ? fail(err) : done(result))),
    );
    return wanted.map(({ partition }) => {
      const offset = offsets.find((o) => o.partition === partition)?.offset ?? -1;
      return offset >= 0 ? offset : -1;
    });
  } finally {
    await new Promise<void>((done) => client.disconnect(() => done()));
  }
}

/** Per partition, the offset the next record written to it gets (its high watermark). */
export async function endOffsets(brokers: string, topic: string, partitions: number): Promise<number[]> {
  const client = new Kafka.Producer({ 'bootstrap.servers': brokers }, {});
  await new Promise<void>((done, fail) =>
    client.connect({ timeout: TIMEOUT_MS }, (err) => (err ? fail(err) : done())),
  );
  try {
    return await Promise.all(
      Array.from(
        { length: partitions },
        (_, partition) =>
          new Promise<number>((done, fail) =>
            client.queryWatermarkOffsets(topic, partition, TIMEOUT_MS, (err, w) =>
              err ? fail(err) : done(w.highOffset),
            ),
          ),
      ),
    );
  } finally {
    await new Promise<void>((done) => client.disconnect(() => done()));
  }
}
