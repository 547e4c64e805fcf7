import * as assert from 'uvu/assert';
import { DueTimer } from '../../../engine/controlplane/due-timer.ts';
import { FakeClock } from '../../support/fake-clock.ts';
import { test } from '../../support/suite.ts';

function fired(clock: FakeClock) {
  const times: number[] = [];
  return { times, record: () => times.push(clock.now()) };
}

test('runs once at the due time, not before, when the clock fires timers early', async () => {
  const clock = new FakeClock({ firesEarlyMs: 1 });
  const timer = new DueTimer(clock);
  const { times, record } = fired(clock);
  timer.arm(clock.start + 15_000, record);
  assert.ok(timer.armed);
  await clock.advance(14_999);
  assert.equal(times, [], 'the early firing at 14 999 ms is not the due time');
  assert.ok(timer.armed, 'armed again for the rest');
  await clock.advance(1);
  assert.equal(times, [clock.start + 15_000]);
  assert.not.ok(timer.armed);
  await clock.advance(60_000);
  assert.is(times.length, 1, 'once');
});

test('a due time already past runs at the next turn', async () => {
  const clock = new FakeClock({ firesEarlyMs: 1 });
  const timer = new DueTimer(clock);
  const { times, record } = fired(clock);
  timer.arm(clock.start - 50, record);
  assert.equal(times, [], 'never synchronously');
  await clock.advance(0);
  assert.equal(times, [clock.start]);
});

test('cancel drops the callback, also between an early firing and the due time', async () => {
  const clock = new FakeClock({ firesEarlyMs: 1 });
  const timer = new DueTimer(clock);
  const { times, record } = fired(clock);
  timer.arm(clock.start + 1000, record);
  await clock.advance(999);
  timer.cancel();
  assert.not.ok(timer.armed);
  assert.is(clock.pending, 0);
  await clock.advance(10_000);
  assert.equal(times, []);
});

test('arming again replaces the earlier due time', async () => {
  const clock = new FakeClock();
  const timer = new DueTimer(clock);
  const { times, record } = fired(clock);
  timer.arm(clock.start + 100, record);
  timer.arm(clock.start + 300, record);
  assert.is(clock.pending, 1);
  await clock.advance(1000);
  assert.equal(times, [clock.start + 300]);
});

test.run();
