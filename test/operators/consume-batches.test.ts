import * as assert from 'node:assert/strict';
import { BehaviorSubject, Subject } from 'rxjs';
import { MemoryBroker } from '../../operators/broker/memory/index.ts';
import type { BrokerConsumer, ConsumedMessage, RebalanceEvent } from '../../operators/broker/types.ts';
import {
  acknowledge,
  type Batch,
  type ConsumeBatchesOptions,
  commitAcknowledged,
  consumeBatches,
} from '../../operators/index.ts';
import { test } from '../support/suite.ts';

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `condition`; the bound holds on a loaded machine (the waits are for a few polls). */
async function until(condition: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await wait(2);
  }
}

async function brokerWith(count: number, partitions = 2) {
  const broker = new MemoryBroker({ topics: { t: partitions } });
  const producer = broker.producer();
  for (let i = 0; i < count; i++)
    await producer.produce({ topic: 't', key: Buffer.from(`k${i}`), value: Buffer.from(String(i)) });
  return broker;
}

/** Subscribes to `consumeBatches(consumer, options)`, keeping every batch it emits in `batches`. */
function collectBatches(consumer: BrokerConsumer, options: ConsumeBatchesOptions) {
  const batches: Batch<ConsumedMessage>[] = [];
  const subscription = consumeBatches(consumer, options).subscribe((batch) => batches.push(batch));
  return { batches, subscription };
}

const values = (batches: Batch<ConsumedMessage>[]) =>
  batches.flatMap((b) => b.items.map((m) => Number(m.value)));

test('emits batches of at most maxBatchSize and stops reading while maxInFlight batches are unacknowledged', async () => {
  const broker = await brokerWith(50);
  const consumer = broker.consumer({ groupId: 'g' });
  const { batches, subscription } = collectBatches(consumer, {
    topics: ['t'],
    maxBatchSize: 5,
    maxInFlight: 2,
    pollTimeoutMs: 10,
  });
  await until(() => batches.length === 2);
  await wait(50);
  assert.equal(batches.length, 2, 'no third batch while two are in flight');
  assert.ok(batches.every((b) => b.items.length <= 5));
  acknowledge(batches[0]!);
  await until(() => batches.length === 3);
  await wait(30);
  assert.equal(batches.length, 3);
  subscription.unsubscribe();
});

test('pausing and resuming loses and duplicates nothing', async () => {
  const broker = await brokerWith(200, 3);
  const consumer = broker.consumer({ groupId: 'g' });
  const paused = new BehaviorSubject(false);
  const seen: number[] = [];
  const subscription = consumeBatches(consumer, {
    topics: ['t'],
    maxBatchSize: 7,
    maxInFlight: 3,
    pollTimeoutMs: 10,
    paused,
  })
    .pipe(commitAcknowledged(consumer, { intervalMs: 0 }))
    .subscribe((batch) => seen.push(...batch.items.map((m) => Number(m.value))));
  const producer = broker.producer();
  for (let round = 0; round < 5; round++) {
    paused.next(true);
    const before = seen.length;
    for (let i = 0; i < 20; i++) {
      await producer.produce({
        topic: 't',
        key: Buffer.from(`r${round}-${i}`),
        value: Buffer.from(String(200 + round * 20 + i)),
      });
    }
    await wait(15);
    assert.equal(seen.length, before, 'nothing emitted while paused');
    paused.next(false);
    await wait(5);
  }
  await until(() => seen.length >= 300);
  await until(() => broker.groupLag('g') === 0);
  assert.deepEqual(
    [...seen].sort((a, b) => a - b),
    Array.from({ length: 300 }, (_, i) => i),
  );
  subscription.unsubscribe();
});

test('a revocation waits for in-flight batches, commits them, and the new owner resumes after them', async () => {
  const broker = await brokerWith(40, 2);
  const first = broker.consumer({ groupId: 'g' });
  const events: RebalanceEvent[] = [];
  const events$ = new Subject<RebalanceEvent>();
  events$.subscribe((e) => events.push(e));
  const { batches: held, subscription } = collectBatches(first, {
    topics: ['t'],
    maxBatchSize: 100,
    maxInFlight: 10,
    pollTimeoutMs: 10,
    events: events$,
  });
  await until(() => values(held).length === 40);

  const second = broker.consumer({ groupId: 'g' });
  second.subscribe(['t']);
  await wait(30);
  assert.equal(
    second.assignment().length,
    0,
    'the partition is not handed over while its batch is in flight',
  );
  assert.ok(events.some((e) => e.kind === 'revoke'));
  for (const batch of held) acknowledge(batch);
  await until(() => second.assignment().length === 1);
  assert.deepEqual(
    await second.consume(100, 20),
    [],
    'everything acknowledged was committed before the hand-over',
  );
  assert.equal(first.assignment().length, 1);
  subscription.unsubscribe();
});

test('a revocation that times out hands over unacknowledged messages, which the new owner reads again', async () => {
  const broker = await brokerWith(10, 1);
  const first = broker.consumer({ groupId: 'g' });
  const { batches: held, subscription } = collectBatches(first, {
    topics: ['t'],
    maxBatchSize: 100,
    maxInFlight: 10,
    pollTimeoutMs: 10,
    revokeTimeoutMs: 20,
  });
  await until(() => values(held).length === 10);
  await first.disconnect();
  const second = broker.consumer({ groupId: 'g' });
  second.subscribe(['t']);
  await until(() => second.assignment().length === 1);
  assert.equal((await second.consume(100, 20)).length, 10);
  acknowledge(held[0]!); // late: ignored, must not throw
  subscription.unsubscribe();
});

test('drain completes the stream; commitAcknowledged commits the in-flight work before completing', async () => {
  const broker = await brokerWith(30);
  const consumer = broker.consumer({ groupId: 'g' });
  const drain = new Subject<void>();
  let completed = false;
  consumeBatches(consumer, { topics: ['t'], maxBatchSize: 10, maxInFlight: 5, pollTimeoutMs: 10, drain })
    .pipe(commitAcknowledged(consumer, { intervalMs: 60_000 }))
    .subscribe({ complete: () => (completed = true) });
  await until(() => broker.groupLag('g') < 30);
  await wait(20);
  drain.next();
  await until(() => completed);
  assert.equal(broker.groupLag('g'), 0);
});

test('unsubscribing stops polling at once (no pending consume keeps the loop alive)', async () => {
  const broker = await brokerWith(0);
  const consumer = broker.consumer({ groupId: 'g' });
  const subscription = consumeBatches(consumer, {
    topics: ['t'],
    maxBatchSize: 10,
    maxInFlight: 1,
    pollTimeoutMs: 60_000,
  }).subscribe();
  await wait(10);
  subscription.unsubscribe();
  // A message written now must still be there for the next reader.
  await broker.producer().produce({ topic: 't', key: null, value: Buffer.from('late') });
  assert.equal((await consumer.consume(10, 20)).length, 1);
});

test.run();
