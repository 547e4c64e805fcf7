import * as assert from 'node:assert/strict';
import { Subject } from 'rxjs';
import {
  type Acknowledgement,
  type Batch,
  type CompressByKeyOptions,
  compressByKey,
  OffsetTracker,
} from '../../operators/index.ts';
import { FakeClock } from '../support/fake-clock.ts';
import { test } from '../support/suite.ts';

interface Update {
  readonly key: string;
  readonly n: number;
}

const tracker = new OffsetTracker();
let offset = 0;
/** A batch with a real acknowledgement, as a source would emit it. */
function batch(...items: Update[]): Batch<Update> {
  const ack = tracker.track([{ topic: 't', partition: 0, offset: offset++, key: null, value: null }]);
  return { items, acks: [ack] };
}
/** A turn of the event loop: where the operator emits what a size limit or an acknowledgement held back. */
const nextTurn = () => new Promise(setImmediate);

/** compressByKey over updates keyed by `key`, on a virtual clock, collecting what it emits. */
function compressing(options: Omit<CompressByKeyOptions<Update>, 'keyOf' | 'clock'>) {
  const clock = new FakeClock();
  const input = new Subject<Batch<Update>>();
  const out: Batch<Update>[] = [];
  input.pipe(compressByKey({ ...options, keyOf: (u) => u.key, clock })).subscribe((b) => out.push(b));
  return { clock, input, out };
}

test('within a window, same keys collapse (newer wins), first-appearance order is kept, all acks carried', async () => {
  const ratios: Array<[number, number]> = [];
  const { clock, input, out } = compressing({ windowMs: 30, onCompressed: (i, o) => ratios.push([i, o]) });
  const inputs = [
    batch({ key: 'a', n: 1 }, { key: 'b', n: 1 }),
    batch({ key: 'a', n: 2 }),
    batch({ key: 'c', n: 1 }, { key: 'b', n: 2 }),
  ];
  for (const b of inputs) input.next(b);
  await clock.advance(28);
  assert.equal(out.length, 0, 'held until the window closes');
  await clock.advance(2);
  assert.equal(out.length, 1);
  assert.deepEqual(out[0]!.items, [
    { key: 'a', n: 2 },
    { key: 'b', n: 2 },
    { key: 'c', n: 1 },
  ]);
  assert.deepEqual(
    out[0]!.acks,
    inputs.flatMap((b) => b.acks),
  );
  assert.deepEqual(ratios, [[5, 3]]);
  input.next(batch({ key: 'a', n: 3 }));
  await clock.advance(30);
  assert.equal(out.length, 2, 'a new window starts with the next batch');
  assert.equal(clock.pending, 0, 'no timer left behind');
});

test('merge combines older and newer values of a key', async () => {
  const { clock, input, out } = compressing({
    windowMs: 10,
    merge: (older, newer) => ({ key: newer.key, n: older.n + newer.n }),
  });
  input.next(batch({ key: 'a', n: 1 }, { key: 'a', n: 2 }));
  await clock.advance(5);
  input.next(batch({ key: 'a', n: 4 }));
  await clock.advance(5);
  assert.deepEqual(out[0]!.items, [{ key: 'a', n: 7 }]);
});

test('windowMs 0 passes each batch through deduplicated; completion flushes an open window', async () => {
  const immediate: Batch<Update>[] = [];
  const input = new Subject<Batch<Update>>();
  input.pipe(compressByKey({ windowMs: 0, keyOf: (u) => u.key })).subscribe((b) => immediate.push(b));
  input.next(batch({ key: 'a', n: 1 }, { key: 'a', n: 2 }));
  assert.deepEqual(immediate[0]!.items, [{ key: 'a', n: 2 }]);

  const clock = new FakeClock();
  const flushed: Batch<Update>[] = [];
  let completed = false;
  const windowed = new Subject<Batch<Update>>();
  windowed
    .pipe(compressByKey({ windowMs: 60_000, keyOf: (u) => u.key, clock }))
    .subscribe({ next: (b) => flushed.push(b), complete: () => (completed = true) });
  windowed.next(batch({ key: 'x', n: 1 }));
  assert.equal(clock.pending, 1, "the window's timer");
  windowed.complete();
  assert.equal(flushed.length, 1);
  assert.ok(completed);
  assert.equal(clock.pending, 0, 'completion clears the timer');
});

test('a batch of no items still passes its acknowledgement on', async () => {
  const input = new Subject<Batch<Update>>();
  const out: Batch<Update>[] = [];
  input.pipe(compressByKey({ windowMs: 0, keyOf: (u) => u.key })).subscribe((b) => out.push(b));
  const empty: Batch<Update> = { items: [], acks: [{ ack() {}, tracker } as Acknowledgement] };
  input.next(empty);
  assert.equal(out.length, 1);
  assert.equal(out[0]!.acks.length, 1);
});

test('each key has its own window: a key first seen later is emitted later, and no item waits longer than the window', async () => {
  const clock = new FakeClock();
  const input = new Subject<Batch<Update>>();
  const out: Array<{ at: number; items: string[] }> = [];
  input
    .pipe(compressByKey({ windowMs: 60, keyOf: (u) => u.key, clock }))
    .subscribe((b) =>
      out.push({ at: clock.now() - clock.start, items: b.items.map((u) => `${u.key}${u.n}`) }),
    );
  input.next(batch({ key: 'a', n: 1 }));
  await clock.advance(30);
  input.next(batch({ key: 'b', n: 1 }, { key: 'a', n: 2 }));
  await clock.advance(60);
  assert.deepEqual(out, [
    { at: 60, items: ['a2'] }, // a, merged within its window, goes alone when it closes
    { at: 90, items: ['b1'] },
  ]);
});

test('a window closing within a millisecond of another is emitted with it (timers fire on whole milliseconds)', async () => {
  const { clock, input, out } = compressing({ windowMs: 30 });
  input.next(batch({ key: 'a', n: 1 }));
  await clock.advance(1);
  input.next(batch({ key: 'b', n: 1 }));
  await clock.advance(1);
  input.next(batch({ key: 'c', n: 1 }));
  await clock.advance(40);
  assert.deepEqual(
    out.map((b) => b.items.map((u) => u.key)),
    [['a', 'b'], ['c']],
  );
});

test('an input batch is acknowledged with the emission of the last of its keys', async () => {
  const { clock, input, out } = compressing({ windowMs: 40 });
  const first = batch({ key: 'a', n: 1 });
  input.next(first);
  await clock.advance(20);
  const second = batch({ key: 'a', n: 2 }, { key: 'b', n: 1 }); // a merges, b opens a later window
  input.next(second);
  await clock.advance(20);
  assert.equal(out.length, 1);
  assert.deepEqual(out[0]!.items, [{ key: 'a', n: 2 }]);
  assert.deepEqual(out[0]!.acks, first.acks, 'only the first batch is complete');
  await clock.advance(20);
  assert.equal(out.length, 2);
  assert.deepEqual(out[1]!.items, [{ key: 'b', n: 1 }]);
  assert.deepEqual(out[1]!.acks, second.acks, 'the second batch completes with b');
  // The emitted acknowledgements are the sources' own: calling them acknowledges the input.
  const before = tracker.inFlight;
  for (const b of out) for (const ack of b.acks) ack.ack();
  assert.equal(tracker.inFlight, before - 2);
});

test('maxInFlight holds closed windows until downstream acknowledges, merging them into one batch', async () => {
  const { clock, input, out } = compressing({ windowMs: 10, maxInFlight: 1 });
  input.next(batch({ key: 'a', n: 1 }));
  await clock.advance(10);
  assert.equal(out.length, 1, 'first window emitted');
  input.next(batch({ key: 'b', n: 1 }));
  await clock.advance(25);
  input.next(batch({ key: 'c', n: 1 }, { key: 'b', n: 2 }));
  await clock.advance(25);
  await nextTurn();
  assert.equal(out.length, 1, 'b and c are due but the first batch is not acknowledged yet');
  assert.equal(clock.pending, 0, 'nothing to wake up for while at the bound');
  for (const ack of out[0]!.acks) ack.ack();
  assert.equal(out.length, 1, 'not within the acknowledgement itself');
  await nextTurn();
  assert.equal(out.length, 2, 'acknowledging frees the slot for the next turn of the event loop');
  assert.deepEqual(out[1]!.items, [
    { key: 'b', n: 2 },
    { key: 'c', n: 1 },
  ]);
  assert.equal(out[1]!.acks.length, 2);
});

test('maxBatchSize splits closed windows over several batches; an input batch whose release ties with a cut-off window waits for it', async () => {
  const { clock, input, out } = compressing({ windowMs: 10, maxBatchSize: 2 });
  const first = batch({ key: 'a', n: 1 }, { key: 'b', n: 1 });
  const second = batch({ key: 'c', n: 1 }, { key: 'a', n: 2 });
  input.next(first);
  input.next(second); // all three windows close together
  await clock.advance(10);
  assert.deepEqual(
    out.map((b) => b.items.map((u) => `${u.key}${u.n}`)),
    [['a2', 'b1']],
    'the first two, in the order their windows opened',
  );
  // Both input batches are released when their last window closes, at 10, and c's window (also
  // closing at 10) was cut off: the operator cannot tell which batches c belongs to, so it holds
  // back every batch released at or after c's close (never early, at worst one batch late).
  assert.deepEqual(out[0]!.acks, []);
  await nextTurn();
  assert.deepEqual(
    out.map((b) => b.items.map((u) => `${u.key}${u.n}`)),
    [['a2', 'b1'], ['c1']],
    'the rest on the next turn',
  );
  assert.deepEqual(out[1]!.acks, [...first.acks, ...second.acks]);
});

test('maxBatchSize: an input batch released before the cut-off window goes with the batch holding its last key', async () => {
  const { clock, input, out } = compressing({ windowMs: 10, maxBatchSize: 2 });
  const first = batch({ key: 'a', n: 1 }, { key: 'b', n: 1 });
  input.next(first);
  await clock.advance(1);
  const second = batch({ key: 'c', n: 1 });
  input.next(second); // closes at 11: due with a and b (timers fire on whole milliseconds)
  await clock.advance(9);
  assert.deepEqual(
    out.map((b) => b.items.map((u) => u.key)),
    [['a', 'b']],
  );
  assert.deepEqual(out[0]!.acks, first.acks);
  await nextTurn();
  assert.deepEqual(
    out.map((b) => b.items.map((u) => u.key)),
    [['a', 'b'], ['c']],
  );
  assert.deepEqual(out[1]!.acks, second.acks);
});

test.run();
