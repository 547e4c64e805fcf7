import * as assert from 'node:assert/strict';
import { Subject } from 'rxjs';
import { microBatch } from '../../operators/index.ts';
import { FakeClock } from '../support/fake-clock.ts';
import { test } from '../support/suite.ts';

test('emits full batches by count at once and a partial one after maxWaitMs', async () => {
  const clock = new FakeClock();
  const input = new Subject<number>();
  const out: number[][] = [];
  input.pipe(microBatch({ maxSize: 3, maxWaitMs: 20, clock })).subscribe((b) => out.push(b));
  for (let i = 1; i <= 7; i++) input.next(i);
  assert.deepEqual(out, [
    [1, 2, 3],
    [4, 5, 6],
  ]);
  await clock.advance(19);
  assert.equal(out.length, 2, 'the partial batch waits maxWaitMs');
  await clock.advance(1);
  assert.deepEqual(out[2], [7]);
  assert.equal(clock.pending, 0);
});

test('the wait counts from the first item of a batch, not the last', async () => {
  const clock = new FakeClock();
  const input = new Subject<number>();
  const out: Array<{ at: number; items: number[] }> = [];
  input
    .pipe(microBatch({ maxSize: 100, maxWaitMs: 40, clock }))
    .subscribe((items) => out.push({ at: clock.now() - clock.start, items }));
  input.next(1);
  await clock.advance(25);
  input.next(2);
  await clock.advance(30);
  assert.deepEqual(out, [{ at: 40, items: [1, 2] }]);
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
