import * as assert from 'uvu/assert';
import { backoffDelay, DEFAULT_BACKOFF } from '../../../engine/controlplane/backoff.ts';
import { test } from '../../support/suite.ts';

const options = { initialMs: 100, maxMs: 1000, multiplier: 2 };

test('the cap doubles per attempt up to the maximum', () => {
  const caps = [0, 1, 2, 3, 4, 5, 50].map((attempt) => backoffDelay(attempt, options, () => 0.999999));
  assert.equal(caps, [99, 199, 399, 799, 999, 999, 999]);
});

test('full jitter: anywhere from 0 to the cap', () => {
  assert.is(
    backoffDelay(3, options, () => 0),
    0,
  );
  assert.is(
    backoffDelay(3, options, () => 0.5),
    400,
  );
});

test('random delays stay within bounds and spread out', () => {
  const delays = Array.from({ length: 2000 }, () => backoffDelay(10, DEFAULT_BACKOFF));
  assert.ok(delays.every((d) => d >= 0 && d <= DEFAULT_BACKOFF.maxMs));
  assert.ok(new Set(delays).size > 1000, 'jittered');
  assert.ok(
    Math.min(...delays) < DEFAULT_BACKOFF.maxMs / 4 && Math.max(...delays) > (DEFAULT_BACKOFF.maxMs * 3) / 4,
  );
});

test.run();
