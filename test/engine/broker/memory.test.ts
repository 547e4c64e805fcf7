import * as assert from 'node:assert/strict';
import { test } from 'uvu';
import { MemoryBroker } from '../../../engine/broker/memory/index.ts';
import { murmur2, partitionForKey } from '../../../engine/broker/memory/partitioner.ts';
import type { RebalanceEvent } from '../../../engine/broker/types.ts';

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
  const waiting = consumer.consume(10, 5000);
  setTimeout(() => void broker.producer().produce({ topic: 't', key: null, value: value('x') }), 10);
  const got = await waiting;
  assert.equal(got.length, 1);
  assert.ok(Date.now() - started < 1000, 'resolved on the write, not at the timeout');
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

test.run();
