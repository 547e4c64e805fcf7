import * as assert from 'node:assert/strict';
import { Subject } from 'rxjs';
import { MemoryBroker } from '../../operators/broker/memory/index.ts';
import type { BrokerConsumer, ConsumedMessage } from '../../operators/broker/types.ts';
import { type Batch, commitAcknowledged, mergeBatches, OffsetTracker } from '../../operators/index.ts';
import { FakeClock } from '../support/fake-clock.ts';
import { test } from '../support/suite.ts';

/** A consumer owning partitions 0 and 1 of `t`, with 3 messages read from each. */
async function setup() {
  const broker = new MemoryBroker({ topics: { t: 2 } });
  const producer = broker.producer();
  for (let i = 0; i < 6; i++)
    await producer.produce({ topic: 't', partition: i % 2, key: null, value: null });
  const consumer = broker.consumer({ groupId: 'g' });
  consumer.subscribe(['t']);
  await new Promise((resolve) => setImmediate(resolve));
  const messages = await consumer.consume(100, 100);
  assert.equal(messages.length, 6);
  return { consumer, messages, tracker: new OffsetTracker() };
}

async function committed(consumer: BrokerConsumer): Promise<Record<number, number>> {
  return Object.fromEntries((await consumer.lag()).map((p) => [p.partition, p.committed]));
}

const ofPartition = (messages: ConsumedMessage[], p: number) => messages.filter((m) => m.partition === p);
const batchOf = (tracker: OffsetTracker, items: ConsumedMessage[]): Batch<ConsumedMessage> => ({
  items,
  acks: [tracker.track(items)],
});
const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

test('commits only acknowledged batches, and only the acknowledged prefix when acks come out of order', async () => {
  const { consumer, messages, tracker } = await setup();
  const p0 = ofPartition(messages, 0);
  const [b1, b2, b3] = [batchOf(tracker, [p0[0]!]), batchOf(tracker, [p0[1]!]), batchOf(tracker, [p0[2]!])];
  const input = new Subject<Batch<ConsumedMessage>>();
  input.pipe(commitAcknowledged(consumer, { intervalMs: 0 })).subscribe();
  assert.deepEqual(await committed(consumer), { 0: -1, 1: -1 });
  input.next(b2); // out of order: b1 is still in flight
  await tick();
  assert.deepEqual(await committed(consumer), { 0: -1, 1: -1 });
  input.next(b1);
  await tick();
  assert.deepEqual(await committed(consumer), { 0: 2, 1: -1 }, 'b1 and b2 done: next offset is 2');
  input.next(b3);
  await tick();
  assert.deepEqual(await committed(consumer), { 0: 3, 1: -1 });
  assert.equal(tracker.inFlight, 0);
});

test('a merged batch acknowledges every batch it covers, across partitions', async () => {
  const { consumer, messages, tracker } = await setup();
  const first = batchOf(tracker, messages.slice(0, 3));
  const second = batchOf(tracker, messages.slice(3));
  const input = new Subject<Batch<ConsumedMessage>>();
  input.pipe(commitAcknowledged(consumer, { intervalMs: 0 })).subscribe();
  input.next(mergeBatches([first, second]));
  await tick();
  assert.deepEqual(await committed(consumer), { 0: 3, 1: 3 });
});

test('commits at most every intervalMs, and once more on completion before completing', async () => {
  const { consumer, messages, tracker } = await setup();
  const batches = messages.map((m) => batchOf(tracker, [m]));
  const input = new Subject<Batch<ConsumedMessage>>();
  const commits: number[] = [];
  const clock = new FakeClock();
  const original = consumer.commit.bind(consumer);
  consumer.commit = (offsets) => {
    commits.push(clock.now() - clock.start);
    return original(offsets);
  };
  let completedAfterCommit = false;
  input.pipe(commitAcknowledged(consumer, { intervalMs: 60, clock })).subscribe({
    complete: () => {
      completedAfterCommit = commits.length > 0;
    },
  });
  input.next(batches[0]!); // commits at once
  await tick();
  await clock.advance(10);
  for (const batch of batches.slice(1, 4)) input.next(batch); // within the interval: wait
  await tick();
  assert.deepEqual(commits, [0]);
  assert.deepEqual(await committed(consumer), { 0: 1, 1: -1 });
  await clock.advance(49);
  assert.deepEqual(commits, [0], 'not before the interval');
  await clock.advance(1);
  await tick();
  assert.deepEqual(commits, [0, 60], 'one more commit when the interval is over');
  input.next(batches[4]!);
  input.next(batches[5]!);
  input.complete();
  await tick();
  assert.equal(commits.length, 3, 'the final commit on completion');
  assert.ok(completedAfterCommit);
  assert.deepEqual(await committed(consumer), { 0: 3, 1: 3 });
});

test('a failed commit fails the stream; unsubscribing clears the pending commit timer', async () => {
  const { consumer, messages, tracker } = await setup();
  const input = new Subject<Batch<ConsumedMessage>>();
  consumer.commit = async () => {
    throw new Error('coordinator gone');
  };
  const failure = new Promise<unknown>((resolve) =>
    input.pipe(commitAcknowledged(consumer, { intervalMs: 0 })).subscribe({ error: resolve }),
  );
  input.next(batchOf(tracker, [messages[0]!]));
  assert.match(String(await failure), /coordinator gone/);

  const other = new Subject<Batch<ConsumedMessage>>();
  const subscription = other.pipe(commitAcknowledged(consumer, { intervalMs: 60_000 })).subscribe();
  other.next(batchOf(tracker, [messages[1]!]));
  other.next(batchOf(tracker, [messages[2]!])); // schedules a timer a minute away
  subscription.unsubscribe(); // the process would otherwise stay alive for that minute
});

test.run();
