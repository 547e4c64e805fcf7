import * as assert from 'node:assert/strict';
import { Subject } from 'rxjs';
import { microBatch } from '../../operators/index.ts';
import { test } from '../support/suite.ts';

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('emits full batches by count at once and a partial one after maxWaitMs', async () => {
  const input = new Subject<number>();
  const out: number[][] = [];
  input.pipe(microBatch({ maxSize: 3, maxWaitMs: 20 })).subscribe((b) => out.push(b));
  for (let i = 1; i <= 7; i++) input.next(i);
  assert.deepEqual(out, [
    [1, 2, 3],
    [4, 5, 6],
  ]);
  await wait(40);
  assert.deepEqual(out[2], [7]);
});

test('the wait counts from the first item of a batch, not the last', async () => {
  const input = new Subject<number>();
  const out: Array<{ at: number; items: number[] }> = [];
  const started = Date.now();
  input
    .pipe(microBatch({ maxSize: 100, maxWaitMs: 40 }))
    .subscribe((items) => out.push({ at: Date.now() - started, items }));
  input.next(1);
  await wait(25);
  input.next(2);
  await wait(30);
  assert.equal(out.length, 1);
  assert.deepEqual(out[0]!.items, [1, 2]);
  assert.ok(out[0]!.at < 52, `emitted ${out[0]!.at} ms after the first item`);
});

test('completion flushes the rest; errors pass through; unsubscribing leaves no timer', async () => {
  const input = new Subject<number>();
  const out: number[][] = [];
  let completed = false;
  input
    .pipe(microBatch({ maxSize: 10, maxWaitMs: 60_000 }))
    .subscribe({ next: (b) => out.push(b), complete: () => (completed = true) });
  input.next(1);
  input.complete();
  assert.deepEqual(out, [[1]]);
  assert.ok(completed);

  const failing = new Subject<number>();
  let failure: unknown;
  failing.pipe(microBatch({ maxSize: 10, maxWaitMs: 60_000 })).subscribe({ error: (e) => (failure = e) });
  failing.next(1);
  failing.error(new Error('boom'));
  assert.match(String(failure), /boom/);

  const idle = new Subject<number>();
  const subscription = idle.pipe(microBatch({ maxSize: 10, maxWaitMs: 60_000 })).subscribe();
  idle.next(1);
  subscription.unsubscribe(); // else this file would not exit for a minute
});

test.run();
