import * as assert from 'node:assert/strict';
import {
  crc32Partition,
  fnv1aPartition,
  librdkafkaPartitioner,
  murmur2,
  partitionForKey,
} from '../../../operators/broker/key-partitioner.ts';
import { MemoryBroker } from '../../../operators/broker/memory/index.ts';
import type { RebalanceEvent } from '../../../operators/broker/types.ts';
import { test } from '../../support/suite.ts';

const value = (s: string) => Buffer.from(s);
const settle = () => new Promise((resolve) => setImmediate(resolve));

test('murmur2 matches the Java client (Kafka UtilsTest vectors)', () => {
  assert.equal(murmur2(value('21')), -973932308);
  assert.equal(murmur2(value('foobar')), -790332482);
  assert.equal(murmur2(value('a-little-bit-long-string')), -985981536);
  assert.equal(murmur2(value('a-little-bit-longer-string')), -1486304829);
  assert.equal(murmur2(value('lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8')), -58897971);
  assert.equal(murmur2(Buffer.alloc(0)), murmur2(Buffer.alloc(0)));
});

test("librdkafka's partitioners: CRC32 (zlib's, the default), FNV-1a (Go's vectors), murmur2 by name", () => {
  const all = 2 ** 32;
  assert.equal(crc32Partition(value('123456789'), all), 0xcbf43926, 'the CRC-32 check value');
  assert.equal(fnv1aPartition(value('kafka'), all), 0xd33c4e1);
  assert.equal(fnv1aPartition(value('giberish123456789'), all), 0x77a58295);
  assert.equal(fnv1aPartition(value(''), all), 0x7ee3623b);
  assert.equal(librdkafkaPartitioner(undefined), crc32Partition);
  assert.equal(librdkafkaPartitioner('consistent_random'), crc32Partition);
  assert.equal(librdkafkaPartitioner('random'), crc32Partition, 'random keeps no key anywhere: CRC32');
  assert.equal(librdkafkaPartitioner('murmur2_random'), partitionForKey);
  assert.equal(librdkafkaPartitioner('fnv1a'), fnv1aPartition);
  assert.equal(new MemoryBroker().keyPartitioner(), partitionForKey);
});

test('keys hash to a stable partition; keyless records go round-robin; explicit partitions are checked', async () => {
  const broker = new MemoryBroker({ topics: { t: 3 } });
  const producer = broker.producer();
  const a = await producer.produce({ topic: 't', key: value('k1'), value: value('1') });
  const b = await producer.produce({ topic: 't', key: value('k1'), value: value('2') });
  assert.equal(a.partition, b.partition);
  assert.equal(a.partition, partitionForKey(value('k1'), 3));
  assert.equal(b.offset, a.offset + 1);
  const keyless = await Promise.all(
    [0, 1, 2].map(() => producer.produce({ topic: 't', key: null, value: null })),
  );
  assert.deepEqual(keyless.map((r) => r.partition).sort(), [0, 1, 2]);
  await assert.rejects(
    producer.produce({ topic: 'nope', key: null, value: null }),
    /topic "nope".*does not exist/,
  );
  await assert.rejects(
    producer.produce({ topic: 't', partition: 3, key: null, value: null }),
    /t\[3\].*3 partition/,
  );
  assert.throws(() => broker.createTopic('t', 5), /already exists with 3/);
  assert.throws(() => broker.createTopic('z', 0), /positive integer/);
  assert.deepEqual(await broker.topics(), new Map([['t', 3]]));
});

test('consume wakes up on a write (no polling sleep), times out with [], and an abort loses nothing', async () => {
  const broker = new MemoryBroker({ topics: { t: 1 } });
  const consumer = broker.consumer({ groupId: 'g' });
  consumer.subscribe(['t']);
  await settle();
  const started = Date.now();
  // A timeout far beyond any stall of a loaded machine, so the bound tells the write from the timeout.
  const waiting = consumer.consume(10, 60_000);
  setTimeout(() => void broker.producer().produce({ topic: 't', key: null, value: value('x') }), 10);
  const got = await waiting;
  assert.equal(got.length, 1);
  assert.ok(Date.now() - started < 30_000, 'resolved on the write, not at the timeout');
  assert.deepEqual(await consumer.consume(10, 20), []);

  const controller = new AbortController();
  const aborted = consumer.consume(10, 5000, controller.signal);
  controller.abort();
  assert.deepEqual(await aborted, []);
  await broker.producer().produce({ topic: 't', key: null, value: value('y') });
  assert.deepEqual(
    (await consumer.consume(10, 100)).map((m) => String(m.value)),
    ['y'],
  );
});

test('a group splits partitions by range, rebalances on join and leave, and resumes from commits', async () => {
  const broker = new MemoryBroker({ topics: { t: 4 } });
  const producer = broker.producer();
  for (let p = 0; p < 4; p++)
    await producer.produce({ topic: 't', partition: p, key: null, value: value(`m${p}`) });
  const first = broker.consumer({ groupId: 'g' });
  const events: RebalanceEvent[] = [];
  first.onRebalance((event) => {
    events.push(event);
  });
  first.subscribe(['t']);
  await settle();
  assert.equal(first.assignment().length, 4);
  const all = await first.consume(10, 100);
  assert.equal(all.length, 4);
  await first.commit(all.filter((m) => m.partition < 2).map((m) => ({ ...m, offset: m.offset + 1 })));

  const second = broker.consumer({ groupId: 'g' });
  second.subscribe(['t']);
  await settle();
  assert.deepEqual(
    first.assignment().map((p) => p.partition),
    [0, 1],
  );
  assert.deepEqual(
    second
      .assignment()
      .map((p) => p.partition)
      .sort(),
    [2, 3],
  );
  assert.deepEqual(
    events.map((e) => e.kind),
    ['assign', 'revoke'],
  );
  // Partitions 2 and 3 were never committed: the new owner reads them again (at-least-once).
  assert.deepEqual((await second.consume(10, 100)).map((m) => String(m.value)).sort(), ['m2', 'm3']);
  await assert.rejects(second.commit([{ topic: 't', partition: 0, offset: 1 }]), /not assigned/);

  await first.disconnect();
  await settle();
  assert.equal(second.assignment().length, 4);
  // Partitions 0 and 1 were committed by the first member: nothing to re-read.
  assert.deepEqual(await second.consume(10, 50), []);
});

test('pause stops delivery of a partition and resume wakes a waiting consume', async () => {
  const broker = new MemoryBroker({ topics: { t: 1 } });
  const consumer = broker.consumer({ groupId: 'g' });
  consumer.subscribe(['t']);
  await settle();
  consumer.pause([{ topic: 't', partition: 0 }]);
  await broker.producer().produce({ topic: 't', key: null, value: value('x') });
  assert.deepEqual(await consumer.consume(10, 20), []);
  const waiting = consumer.consume(10, 5000);
  consumer.resume([{ topic: 't', partition: 0 }]);
  assert.equal((await waiting).length, 1);
});

test('lag and caughtUp follow commits', async () => {
  const broker = new MemoryBroker({ topics: { t: 2 } });
  const producer = broker.producer();
  for (let i = 0; i < 5; i++) await producer.produce({ topic: 't', key: value(`k${i}`), value: null });
  const consumer = broker.consumer({ groupId: 'g' });
  consumer.subscribe(['t']);
  await settle();
  assert.equal(broker.groupLag('g'), 5);
  let caughtUp = false;
  void broker.caughtUp('g').then(() => {
    caughtUp = true;
  });
  const messages = await consumer.consume(10, 100);
  assert.equal(messages.length, 5);
  const [firstMessage] = messages;
  await consumer.commit([{ ...firstMessage!, offset: firstMessage!.offset + 1 }]);
  await settle();
  assert.equal(caughtUp, false);
  const lag = await consumer.lag();
  assert.equal(
    lag.reduce((n, p) => n + p.lag, 0),
    4,
  );
  const last = new Map(messages.map((m) => [m.partition, m]));
  await consumer.commit([...last.values()].map((m) => ({ ...m, offset: m.offset + 1 })));
  await settle();
  assert.equal(caughtUp, true);
  assert.equal(broker.groupLag('g'), 0);
});

test('a topic created later is assigned to groups subscribed to it', async () => {
  const broker = new MemoryBroker();
  const consumer = broker.consumer({ groupId: 'g' });
  consumer.subscribe(['late']);
  await settle();
  assert.deepEqual(consumer.assignment(), []);
  broker.createTopic('late', 2);
  await settle();
  assert.equal(consumer.assignment().length, 2);
});

/** Appends `count` keyless messages `m<offset>` to partition 0 of `topic`. */
async function fill(broker: MemoryBroker, topic: string, count: number): Promise<void> {
  const producer = broker.producer();
  for (let i = 0; i < count; i++) {
    const { offset } = await producer.produce({ topic, partition: 0, key: null, value: value('') });
    assert.ok(offset >= 0);
  }
}

async function subscribed(broker: MemoryBroker, groupId: string, topic: string) {
  const consumer = broker.consumer({ groupId });
  consumer.subscribe([topic]);
  await settle();
  return consumer;
}

const commitAt = (consumer: ReturnType<MemoryBroker['consumer']>, offset: number) =>
  consumer.commit([{ topic: 't', partition: 0, offset }]);

test("'committed' retention drops below the lowest commit of every subscribed group, offsets stay absolute", async () => {
  const broker = new MemoryBroker({ topics: { t: 1 }, retention: 'committed' });
  await fill(broker, 't', 10);
  const a = await subscribed(broker, 'a', 't');
  const b = await subscribed(broker, 'b', 't');
  assert.equal((await a.consume(100, 50)).length, 10);
  assert.equal((await b.consume(7, 50)).length, 7);

  await commitAt(a, 10);
  assert.deepEqual(broker.offsets('t'), [{ low: 0, high: 10 }], 'b has committed nothing: all kept');
  await commitAt(b, 4);
  assert.deepEqual(broker.offsets('t'), [{ low: 4, high: 10 }], 'kept from the lowest commit (b)');
  await commitAt(b, 7);
  assert.deepEqual(broker.offsets('t'), [{ low: 7, high: 10 }]);
  const kept = broker.messages('t')[0]!;
  assert.deepEqual(
    kept.map((m) => m.offset),
    [7, 8, 9],
    'messages() returns what is kept, with absolute offsets',
  );
  // b reads on from where it was, past the dropped prefix.
  assert.deepEqual(
    (await b.consume(100, 50)).map((m) => m.offset),
    [7, 8, 9],
  );
  await commitAt(a, 10);
  assert.equal(broker.offsets('t')[0]!.low, 7, "a's commit above b's drops nothing more");
});

test("'all' retention keeps every message whatever is committed", async () => {
  const broker = new MemoryBroker({ topics: { t: 1 } });
  await fill(broker, 't', 10);
  const a = await subscribed(broker, 'a', 't');
  assert.equal((await a.consume(100, 50)).length, 10);
  await commitAt(a, 10);
  assert.deepEqual(broker.offsets('t'), [{ low: 0, high: 10 }]);
  assert.deepEqual(
    broker.messages('t')[0]!.map((m) => m.offset),
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  );
});

test('a topic no group subscribed to keeps everything under committed retention', async () => {
  const broker = new MemoryBroker({ topics: { t: 1, other: 1 }, retention: 'committed' });
  await fill(broker, 't', 3);
  await fill(broker, 'other', 3);
  const a = await subscribed(broker, 'a', 't');
  await a.consume(100, 50);
  await commitAt(a, 3);
  assert.deepEqual(broker.offsets('t'), [{ low: 3, high: 3 }]);
  assert.deepEqual(broker.offsets('other'), [{ low: 0, high: 3 }]);
  assert.equal(broker.messages('other')[0]!.length, 3);
});

test('after dropping: lag, caughtUp, a late group starting at the base, and the next produced offset', async () => {
  const broker = new MemoryBroker({ topics: { t: 1 }, retention: 'committed' });
  await fill(broker, 't', 10);
  const a = await subscribed(broker, 'a', 't');
  await a.consume(6, 50);
  await commitAt(a, 6);
  assert.equal(broker.offsets('t')[0]!.low, 6);
  assert.equal(broker.groupLag('a'), 4);
  assert.deepEqual(await a.lag(), [{ topic: 't', partition: 0, committed: 6, high: 10, lag: 4 }]);

  // Joins after offsets 0..5 were dropped: reads from the base, and holds it until it commits.
  const late = await subscribed(broker, 'late', 't');
  assert.equal(broker.groupLag('late'), 4, 'lag counts only what is kept');
  assert.deepEqual(await late.lag(), [{ topic: 't', partition: 0, committed: -1, high: 10, lag: 4 }]);
  assert.deepEqual(
    (await late.consume(100, 50)).map((m) => m.offset),
    [6, 7, 8, 9],
  );
  await a.consume(100, 50);
  await commitAt(a, 10);
  assert.equal(broker.offsets('t')[0]!.low, 6, 'the late group has not committed yet');

  let caughtUp = false;
  void broker.caughtUp('late').then(() => {
    caughtUp = true;
  });
  await settle();
  assert.equal(caughtUp, false);
  await commitAt(late, 10);
  await settle();
  assert.equal(caughtUp, true, 'caughtUp resolves once the late group committed the kept messages');
  assert.deepEqual(broker.offsets('t'), [{ low: 10, high: 10 }], 'every group committed all');
  assert.equal(broker.groupLag('a') + broker.groupLag('late'), 0);

  const next = await broker.producer().produce({ topic: 't', partition: 0, key: null, value: value('n') });
  assert.equal(next.offset, 10, 'the next offset is absolute, not the number of messages kept');
  assert.deepEqual(
    (await a.consume(100, 50)).map((m) => [m.offset, String(m.value)]),
    [[10, 'n']],
  );
  assert.equal(broker.groupLag('late'), 1);
});

test('a member taking over a partition reads on from the group commit, not from the dropped prefix', async () => {
  const broker = new MemoryBroker({ topics: { t: 1 }, retention: 'committed' });
  await fill(broker, 't', 8);
  const first = await subscribed(broker, 'g', 't');
  await first.consume(5, 50);
  await commitAt(first, 5);
  await first.disconnect();
  const second = await subscribed(broker, 'g', 't');
  assert.deepEqual(
    (await second.consume(100, 50)).map((m) => m.offset),
    [5, 6, 7],
  );
});

test('a member whose position is below the base (its group committed past it) reads from the base', async () => {
  const broker = new MemoryBroker({ topics: { t: 1 }, retention: 'committed' });
  await fill(broker, 't', 10);
  const a = await subscribed(broker, 'a', 't');
  assert.equal((await a.consume(2, 50)).length, 2);
  await commitAt(a, 6);
  assert.deepEqual(
    (await a.consume(100, 50)).map((m) => m.offset),
    [6, 7, 8, 9],
  );
});

test('dropping is amortised: 200k single-message commits, interleaved with appends, stay fast and exact', async () => {
  const broker = new MemoryBroker({ topics: { t: 1 }, retention: 'committed' });
  const producer = broker.producer();
  const consumer = await subscribed(broker, 'g', 't');
  // A backlog of 50k kept all along: a copy of it per commit (O(n)) would take minutes.
  for (let i = 0; i < 50_000; i++)
    await producer.produce({ topic: 't', partition: 0, key: null, value: null });
  const started = Date.now();
  let expected = 0;
  for (let i = 0; i < 200_000; i++) {
    await producer.produce({ topic: 't', partition: 0, key: null, value: null });
    const [message] = await consumer.consume(1, 0);
    assert.ok(message);
    if (message.offset !== expected) assert.equal(message.offset, expected, 'every offset once, in order');
    expected++;
    await commitAt(consumer, expected);
    const elapsed = Date.now() - started;
    // Not a speed goal: O(n) copies take minutes, amortised O(1) well under a second; the bound
    // only tells the two apart, with room for a loaded machine.
    if (elapsed > 60_000) assert.fail(`${i} commits took ${elapsed} ms: not amortised O(1)`);
  }
  assert.deepEqual(broker.offsets('t'), [{ low: 200_000, high: 250_000 }]);
  const kept = broker.messages('t')[0]!;
  assert.equal(kept.length, 50_000);
  assert.equal(kept[0]!.offset, 200_000);
  assert.equal(kept.at(-1)!.offset, 249_999);
});

test('lagAtMost resolves on the commit that brings the summed lag of the groups down to the bound', async () => {
  const broker = new MemoryBroker({ topics: { t: 1, u: 1 }, retention: 'committed' });
  await fill(broker, 't', 5);
  await fill(broker, 'u', 5);
  const a = await subscribed(broker, 'a', 't');
  const b = await subscribed(broker, 'b', 'u');
  await broker.lagAtMost(['a', 'b'], 10); // already there
  let resolved = false;
  void broker.lagAtMost(['a', 'b'], 4).then(() => {
    resolved = true;
  });
  await a.consume(100, 50);
  await commitAt(a, 5);
  await settle();
  assert.equal(resolved, false, 'lag 5 is still above 4');
  await b.consume(100, 50);
  await b.commit([{ topic: 'u', partition: 0, offset: 1 }]);
  await settle();
  assert.equal(resolved, true);
});

test.run();
