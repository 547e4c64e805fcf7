import * as assert from 'node:assert/strict';
import { Subject } from 'rxjs';
import { test } from 'uvu';
import { type Acknowledgement, type Batch, compressByKey, OffsetTracker } from '../../operators/index.ts';

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
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('within a window, same keys collapse (newer wins), first-appearance order is kept, all acks carried', async () => {
  const input = new Subject<Batch<Update>>();
  const out: Batch<Update>[] = [];
  const ratios: Array<[number, number]> = [];
  input
    .pipe(compressByKey({ windowMs: 30, keyOf: (u) => u.key, onCompressed: (i, o) => ratios.push([i, o]) }))
    .subscribe((b) => out.push(b));
  const inputs = [
    batch({ key: 'a', n: 1 }, { key: 'b', n: 1 }),
    batch({ key: 'a', n: 2 }),
    batch({ key: 'c', n: 1 }, { key: 'b', n: 2 }),
  ];
  for (const b of inputs) input.next(b);
  assert.equal(out.length, 0, 'held until the window closes');
  await wait(60);
  // Windows are per key: if the clock ticked between the three inputs (a loaded machine), 'c'
  // opened a millisecond later and may close in a batch of its own. Either way, together:
  assert.ok(out.length >= 1 && out.length <= 2, `one or two batches, got ${out.length}`);
  assert.deepEqual(
    out.flatMap((b) => b.items),
    [
      { key: 'a', n: 2 },
      { key: 'b', n: 2 },
      { key: 'c', n: 1 },
    ],
  );
  assert.deepEqual(
    out.flatMap((b) => b.acks),
    inputs.flatMap((b) => b.acks),
  );
  assert.deepEqual(
    ratios.reduce(([i, o], [di, dout]) => [i + di, o + dout], [0, 0]),
    [5, 3],
  );
  const before = out.length;
  input.next(batch({ key: 'a', n: 3 }));
  await wait(60);
  assert.equal(out.length, before + 1, 'a new window starts with the next batch');
});

test('merge combines older and newer values of a key', async () => {
  const input = new Subject<Batch<Update>>();
  const out: Batch<Update>[] = [];
  input
    .pipe(
      compressByKey({
        windowMs: 10,
        keyOf: (u) => u.key,
        merge: (older, newer) => ({ key: newer.key, n: older.n + newer.n }),
      }),
    )
    .subscribe((b) => out.push(b));
  input.next(batch({ key: 'a', n: 1 }, { key: 'a', n: 2 }));
  input.next(batch({ key: 'a', n: 4 }));
  await wait(30);
  assert.deepEqual(out[0]!.items, [{ key: 'a', n: 7 }]);
});

test('windowMs 0 passes each batch through deduplicated; completion flushes an open window', async () => {
  const immediate: Batch<Update>[] = [];
  const input = new Subject<Batch<Update>>();
  input.pipe(compressByKey({ windowMs: 0, keyOf: (u) => u.key })).subscribe((b) => immediate.push(b));
  input.next(batch({ key: 'a', n: 1 }, { key: 'a', n: 2 }));
  assert.deepEqual(immediate[0]!.items, [{ key: 'a', n: 2 }]);

  const flushed: Batch<Update>[] = [];
  let completed = false;
  const windowed = new Subject<Batch<Update>>();
  windowed
    .pipe(compressByKey({ windowMs: 60_000, keyOf: (u) => u.key }))
    .subscribe({ next: (b) => flushed.push(b), complete: () => (completed = true) });
  windowed.next(batch({ key: 'x', n: 1 }));
  windowed.complete(); // also clears the minute-long timer
  assert.equal(flushed.length, 1);
  assert.ok(completed);
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
  const input = new Subject<Batch<Update>>();
  const out: Array<{ at: number; items: string[] }> = [];
  const started = Date.now();
  input
    .pipe(compressByKey({ windowMs: 60, keyOf: (u) => u.key }))
    .subscribe((b) => out.push({ at: Date.now() - started, items: b.items.map((u) => `${u.key}${u.n}`) }));
  input.next(batch({ key: 'a', n: 1 }));
  await wait(30);
  input.next(batch({ key: 'b', n: 1 }, { key: 'a', n: 2 }));
  await wait(45); // a's window (opened at 0) has closed; b's (opened at 30) has not
  assert.deepEqual(
    out.map((o) => o.items),
    [['a2']],
    'a, merged within its window, goes alone',
  );
  await wait(40);
  assert.deepEqual(
    out.map((o) => o.items),
    [['a2'], ['b1']],
  );
  assert.ok((out[0]?.at ?? 0) >= 59 && (out[0]?.at ?? 0) < 90, `a emitted at ${out[0]?.at} ms`);
  assert.ok((out[1]?.at ?? 0) >= 89 && (out[1]?.at ?? 0) < 125, `b emitted at ${out[1]?.at} ms`);
});

test('an input batch is acknowledged with the emission of the last of its keys', async () => {
  const input = new Subject<Batch<Update>>();
  const out: Batch<Update>[] = [];
  input.pipe(compressByKey({ windowMs: 40, keyOf: (u) => u.key })).subscribe((b) => out.push(b));
  const first = batch({ key: 'a', n: 1 });
  input.next(first);
  await wait(20);
  const second = batch({ key: 'a', n: 2 }, { key: 'b', n: 1 }); // a merges, b opens a later window
  input.next(second);
  await wait(30);
  assert.equal(out.length, 1);
  assert.deepEqual(out[0]!.items, [{ key: 'a', n: 2 }]);
  assert.deepEqual(out[0]!.acks.length, 1, 'only the first batch is complete');
  await wait(30);
  assert.equal(out.length, 2);
  assert.deepEqual(out[1]!.items, [{ key: 'b', n: 1 }]);
  assert.equal(out[1]!.acks.length, 1, 'the second batch completes with b');
  // The emitted acknowledgements are the sources' own: calling them acknowledges the input.
  const before = tracker.inFlight;
  for (const b of out) for (const ack of b.acks) ack.ack();
  assert.equal(tracker.inFlight, before - 2);
});

test('maxInFlight holds closed windows until downstream acknowledges, merging them into one batch', async () => {
  const input = new Subject<Batch<Update>>();
  const out: Batch<Update>[] = [];
  input
    .pipe(compressByKey({ windowMs: 10, keyOf: (u) => u.key, maxInFlight: 1 }))
    .subscribe((b) => out.push(b));
  input.next(batch({ key: 'a', n: 1 }));
  await wait(25);
  assert.equal(out.length, 1, 'first window emitted');
  input.next(batch({ key: 'b', n: 1 }));
  await wait(25);
  input.next(batch({ key: 'c', n: 1 }, { key: 'b', n: 2 }));
  await wait(25);
  assert.equal(out.length, 1, 'b and c are due but the first batch is not acknowledged yet');
  for (const ack of out[0]!.acks) ack.ack();
  await new Promise(setImmediate);
  assert.equal(out.length, 2, 'acknowledging frees the slot for the next turn of the event loop');
  assert.deepEqual(out[1]!.items, [
    { key: 'b', n: 2 },
    { key: 'c', n: 1 },
  ]);
  assert.equal(out[1]!.acks.length, 2);
});

test('maxBatchSize splits closed windows over several batches; an input batch is acknowledged with its last key', async () => {
  const input = new Subject<Batch<Update>>();
  const out: Batch<Update>[] = [];
  input
    .pipe(compressByKey({ windowMs: 10, keyOf: (u) => u.key, maxBatchSize: 2 }))
    .subscribe((b) => out.push(b));
  const first = batch({ key: 'a', n: 1 }, { key: 'b', n: 1 });
  const second = batch({ key: 'c', n: 1 }, { key: 'a', n: 2 });
  input.next(first);
  input.next(second); // same millisecond or the next: all four windows close together
  await wait(30);
  assert.deepEqual(
    out.map((b) => b.items.map((u) => `${u.key}${u.n}`)),
    [['a2', 'b1'], ['c1']],
  );
  const acked = out.map((b) => b.acks.length);
  assert.equal(
    acked.reduce((x, y) => x + y, 0),
    2,
    'each input batch acknowledged once',
  );
  assert.ok(out[1]!.acks.length >= 1, 'the second input batch (holding c) goes with c');
});

test.run();
