/** Scaling up mid-stream with the range assignor (eager rebalances): see test/support/scale-up.ts. */
import { scaleUp } from '../../support/scale-up.ts';
import { test } from '../../support/suite.ts';

test('a second instance joins mid-stream (range assignor): it takes partitions over, the output converges', () =>
  scaleUp('range'));

test.run();
