/** Scaling up mid-stream with the cooperative-sticky assignor (incremental rebalances): see test/support/scale-up.ts. */
import { scaleUp } from '../../support/scale-up.ts';
import { test } from '../../support/suite.ts';

test('a second instance joins mid-stream (cooperative-sticky assignor): it takes partitions over, the output converges', () =>
  scaleUp('cooperative-sticky'));

test.run();
