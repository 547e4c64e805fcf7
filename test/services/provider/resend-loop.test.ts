import * as assert from 'node:assert/strict';
import pino from 'pino';
import { startResendLoop } from '../../../services/provider/change-relay.ts';
import { FakeClock } from '../../support/fake-clock.ts';
import { test } from '../../support/suite.ts';

const logger = pino({ level: 'silent' });

function recordingLoop(clock: FakeClock, everyMs: number, fail = () => false) {
  const cutoffs: number[] = [];
  const stop = startResendLoop({
    resend: async (cutoff) => {
      cutoffs.push(cutoff.getTime());
      if (fail()) throw new Error('broker down');
    },
    clock,
    everyMs,
    graceMs: 500,
    logger,
  });
  return { cutoffs, stop };
}

test('a round at start, then one every everyMs, each leaving the last graceMs to their requests', async () => {
  const clock = new FakeClock();
  const { cutoffs, stop } = recordingLoop(clock, 1000);
  await clock.advance(0);
  assert.deepEqual(cutoffs, [clock.start - 500]);
  await clock.advance(999);
  assert.equal(cutoffs.length, 1);
  await clock.advance(1);
  await clock.advance(1000);
  assert.deepEqual(cutoffs, [clock.start - 500, clock.start + 500, clock.start + 1500]);
  await stop();
  await clock.advance(5000);
  assert.equal(cutoffs.length, 3, 'no round after stop');
  assert.equal(clock.pending, 0);
});

test('a failing round does not end the loop', async () => {
  const clock = new FakeClock();
  let failures = 2;
  const { cutoffs, stop } = recordingLoop(clock, 100, () => failures-- > 0);
  await clock.advance(300);
  assert.equal(cutoffs.length, 4);
  await stop();
});

test('everyMs 0: only the round at start', async () => {
  const clock = new FakeClock();
  const { cutoffs, stop } = recordingLoop(clock, 0);
  await clock.advance(10_000);
  assert.equal(cutoffs.length, 1);
  assert.equal(clock.pending, 0);
  await stop();
});

test.run();
