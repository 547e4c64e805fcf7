import * as assert from 'uvu/assert';
import { FeedbackScheduler } from '../../../engine/controlplane/feedback.ts';
import { FakeClock } from '../../support/fake-clock.ts';
import { test } from '../../support/suite.ts';

function scheduler(clock: FakeClock, intervalMs: number, send?: () => Promise<number | null>) {
  const sent: number[] = [];
  const errors: unknown[] = [];
  const feedback = new FeedbackScheduler({
    intervalMs,
    clock,
    send:
      send ??
      (async () => {
        sent.push(clock.now());
        return clock.now();
      }),
    onError: (e) => errors.push(e),
  });
  return { feedback, sent, errors };
}

const gaps = (times: number[]) => times.slice(1).map((t, i) => t - times[i]!);

test('sends at once on start, then every interval', async () => {
  const clock = new FakeClock();
  const { feedback, sent } = scheduler(clock, 3000);
  feedback.start();
  await clock.advance(10_000);
  assert.is(sent.length, 4);
  assert.is(sent[0], 1_000_000);
  assert.equal(gaps(sent), [3000, 3000, 3000]);
  feedback.stop();
  assert.is(clock.pending, 0, 'stop clears the timer');
});

test('timers that fire early never send before the interval, nor skip a send', async () => {
  const clock = new FakeClock({ firesEarlyMs: 1 });
  const { feedback, sent } = scheduler(clock, 3000);
  feedback.start();
  await clock.advance(9000);
  assert.equal(gaps(sent), [3000, 3000, 3000]);
  feedback.stop();
  assert.is(clock.pending, 0);
});

test('a new stream soon after the last event waits for the rest of the interval', async () => {
  const clock = new FakeClock();
  const { feedback, sent } = scheduler(clock, 3000);
  feedback.start();
  await clock.advance(100);
  feedback.stop();
  await clock.advance(1000);
  feedback.start();
  await clock.advance(0);
  assert.is(sent.length, 1, 'not sent early after a reconnection');
  await clock.advance(1900);
  assert.equal(gaps(sent), [3000]);
});

test('a new stream long after the last event sends at once', async () => {
  const clock = new FakeClock();
  const { feedback, sent } = scheduler(clock, 1000);
  feedback.start();
  await clock.advance(0);
  feedback.stop();
  await clock.advance(5000);
  feedback.start();
  await clock.advance(0);
  assert.equal(gaps(sent), [5000]);
});

test('a slow snapshot delays the next event; the interval counts from the time written', async () => {
  const clock = new FakeClock();
  const sent: number[] = [];
  const { feedback } = scheduler(clock, 1000, async () => {
    await new Promise<void>((resolve) => clock.setTimeout(resolve, 700));
    sent.push(clock.now());
    return clock.now();
  });
  feedback.start();
  await clock.advance(5000);
  assert.ok(sent.length >= 3);
  assert.ok(
    gaps(sent).every((g) => g >= 1000),
    String(gaps(sent)),
  );
});

test('never two sends at once, even when start is called repeatedly', async () => {
  const clock = new FakeClock();
  let inFlight = 0;
  let maxInFlight = 0;
  const { feedback } = scheduler(clock, 100, async () => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    await new Promise<void>((resolve) => clock.setTimeout(resolve, 250));
    inFlight--;
    return clock.now();
  });
  for (let i = 0; i < 5; i++) feedback.start();
  await clock.advance(2000);
  assert.is(maxInFlight, 1);
});

test('a failing snapshot is reported and retried an interval later, not in a loop', async () => {
  const clock = new FakeClock();
  let calls = 0;
  const { feedback, errors } = scheduler(clock, 1000, async () => {
    calls++;
    throw new Error('lag unavailable');
  });
  feedback.start();
  await clock.advance(3500);
  assert.is(calls, 4);
  assert.is(errors.length, 4);
  assert.match(String(errors[0]), /lag unavailable/);
});

test('an event not written (stream gone) does not count as sent', async () => {
  const clock = new FakeClock();
  let written = false;
  const sent: number[] = [];
  const { feedback } = scheduler(clock, 1000, async () => {
    if (!written) {
      written = true;
      return null;
    }
    sent.push(clock.now());
    return clock.now();
  });
  feedback.start();
  await clock.advance(0);
  assert.equal(sent, [1_000_000], 'the retry is not held back by an unsent event');
  feedback.stop();
});

test('stop while a send is in flight: nothing is scheduled after it', async () => {
  const clock = new FakeClock();
  const { feedback } = scheduler(clock, 100, async () => {
    await new Promise<void>((resolve) => clock.setTimeout(resolve, 50));
    return clock.now();
  });
  feedback.start();
  await clock.advance(10);
  feedback.stop();
  await clock.advance(1000);
  assert.is(clock.pending, 0);
});

test.run();
