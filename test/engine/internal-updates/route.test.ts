import * as assert from 'uvu/assert';
import {
  decodeInternalUpdates,
  encodeInternalUpdate,
  type InternalUpdate,
  internalUpdateId,
} from '../../../engine/internal-updates/message.ts';
import { MAX_MESSAGE_CHARS, routeInternalUpdates } from '../../../engine/internal-updates/route.ts';
import { crc32Partition, partitionForKey } from '../../../operators/broker/key-partitioner.ts';
import { MemoryBroker } from '../../../operators/broker/memory/index.ts';
import { test } from '../../support/suite.ts';

const updates: InternalUpdate[] = Array.from({ length: 60 }, (_, i) => ({
  head: i % 3 === 0 ? 'accounts' : 'customers',
  ck: `{"id":${i % 40}}`,
  key: { id: i % 40 },
  ...(i % 4 === 0 ? { op: 'u' as const } : {}),
}));

test('one message per target partition, each update on the partition a single-key message of it gets', async () => {
  const broker = new MemoryBroker({ topics: { internal: 3 } });
  const route = { topic: 'internal', partitions: 3, partitioner: broker.keyPartitioner() };
  const records = routeInternalUpdates(route, updates);
  assert.is(records.length, 3, 'sixty updates over three partitions: three messages');
  const producer = broker.producer();
  for (const record of records) {
    for (const u of decodeInternalUpdates(record.value) ?? []) {
      // Where the broker's own partitioner puts the one-update message of earlier versions.
      const single = await producer.produce(encodeInternalUpdate('internal', u));
      assert.is(record.partition, single.partition, internalUpdateId(u));
    }
  }
  const carried = records.flatMap((r) => decodeInternalUpdates(r.value) ?? []);
  assert.is(carried.length, updates.length, 'no update lost or duplicated');
  for (const record of records) {
    const mine = updates.filter(
      (u) => partitionForKey(Buffer.from(internalUpdateId(u)), 3) === record.partition,
    );
    assert.equal(decodeInternalUpdates(record.value), mine, 'in batch order within a partition');
  }
});

test('the route follows the producer partitioner it is given, and one partition takes one message', () => {
  const records = routeInternalUpdates({ topic: 't', partitions: 5, partitioner: crc32Partition }, updates);
  for (const record of records)
    for (const u of decodeInternalUpdates(record.value) ?? [])
      assert.is(record.partition, crc32Partition(Buffer.from(internalUpdateId(u)), 5));
  const single = routeInternalUpdates({ topic: 't', partitions: 1, partitioner: crc32Partition }, updates);
  assert.is(single.length, 1);
  assert.equal(decodeInternalUpdates(single[0]?.value ?? null), updates);
  assert.equal(routeInternalUpdates({ topic: 't', partitions: 1, partitioner: crc32Partition }, []), []);
});

test('large keys: a partition takes several messages, each under the size bound, in order', () => {
  const filler = 'x'.repeat(10_000);
  const large: InternalUpdate[] = Array.from({ length: 80 }, (_, i) => ({
    head: 'customers',
    ck: `{"id":${i},"name":"${filler}"}`,
    key: { id: i, name: filler },
  }));
  const records = routeInternalUpdates({ topic: 't', partitions: 1, partitioner: crc32Partition }, large);
  assert.ok(records.length >= Math.ceil((80 * 10_000) / MAX_MESSAGE_CHARS), `${records.length} messages`);
  for (const record of records) assert.ok((record.value?.length ?? 0) < 1_000_000, 'under 1 MB');
  assert.equal(
    records.flatMap((r) => decodeInternalUpdates(r.value) ?? []),
    large,
    'every update, in order',
  );
  const huge = {
    head: 'h',
    ck: `{"k":"${'y'.repeat(MAX_MESSAGE_CHARS)}"}`,
    key: { k: 'y'.repeat(MAX_MESSAGE_CHARS) },
  };
  const alone = routeInternalUpdates({ topic: 't', partitions: 1, partitioner: crc32Partition }, [
    large[0] as InternalUpdate,
    huge,
    large[1] as InternalUpdate,
  ]);
  assert.is(alone.length, 3, 'an update larger than the bound goes alone');
});

test.run();
