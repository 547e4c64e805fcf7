import * as assert from 'node:assert/strict';
import { from, lastValueFrom, toArray } from 'rxjs';
import { MemoryBroker } from '../../operators/broker/memory/index.ts';
import type { ProducerRecord } from '../../operators/broker/types.ts';
import { type Batch, OffsetTracker, produceRecords } from '../../operators/index.ts';
import { test } from '../support/suite.ts';

const tracker = new OffsetTracker();
const record = (topic: string, key: string): ProducerRecord => ({
  topic,
  key: Buffer.from(key),
  value: Buffer.from(key),
});
const batch = (...items: ProducerRecord[]): Batch<ProducerRecord> => ({
  items,
  acks: [tracker.track([{ topic: 'in', partition: 0, offset: 0, key: null, value: null }])],
});

test('emits one batch of delivery reports per input batch, keeping its acknowledgements', async () => {
  const broker = new MemoryBroker({ topics: { out: 2 } });
  const inputs = [batch(record('out', 'a'), record('out', 'b')), batch(), batch(record('out', 'c'))];
  const outputs = await lastValueFrom(from(inputs).pipe(produceRecords(broker.producer()), toArray()));
  assert.equal(outputs.length, 3);
  const byAcks = new Map(outputs.map((o) => [o.acks[0], o]));
  for (const input of inputs) assert.equal(byAcks.get(input.acks[0])!.items.length, input.items.length);
  const written = broker.messages('out').flat();
  assert.deepEqual(written.map((m) => String(m.value)).sort(), ['a', 'b', 'c']);
  for (const report of outputs.flatMap((o) => o.items)) {
    assert.ok(written.some((m) => m.partition === report.partition && m.offset === report.offset));
  }
});

test('a failed delivery fails the stream with a message naming the topic', async () => {
  const broker = new MemoryBroker({ topics: { out: 1 } });
  await assert.rejects(
    lastValueFrom(
      from([batch(record('out', 'a'), record('missing', 'b'))]).pipe(produceRecords(broker.producer())),
    ),
    /producing a batch of 2 record\(s\) to out, missing failed: .*"missing"/,
  );
});

test.run();
