/**
 * Scaling up mid-stream on a real consumer group (README "Scaling out"): one `streamfold run`
 * instance works alone through a third of the events, a second one joins with the same
 * configuration, the rest is written while the group rebalances. Topics have different
 * partition counts (one input has a single partition: one instance gets none of it). The second
 * instance must take over partitions and work on them, and every head key must end on what one
 * embedded engine ends on for the same events; every group commits the end of its topics.
 *
 * @example
 *   test('range assignor', () => scaleUp('range'));
 */
import * as assert from 'uvu/assert';
import { configFor, DIAMOND } from './configs.ts';
import { embeddedAggregates } from './converge.ts';
import { startDeployment } from './deployment.ts';
import { metricSum } from './instances.ts';
import { diamondEvents } from './random-events.ts';
import { until } from './until.ts';

const EVENTS = 450;

/** `partition.assignment.strategy`: what a user may set in each consumer's properties. */
export async function scaleUp(strategy: 'range' | 'cooperative-sticky'): Promise<void> {
  const deployment = await startDeployment({
    id: `scaleUp${strategy === 'range' ? 'Range' : 'Coop'}`,
    partitions: { customers: 2, orders: 3, payments: 1, refunds: 4, internal: 3, output: 2 },
    consumer: {
      'partition.assignment.strategy': strategy,
      // A member leaving is noticed in seconds, not librdkafka's 45 s.
      'session.timeout.ms': '6000',
      'heartbeat.interval.ms': '500',
    },
  });
  try {
    const events = diamondEvents(28, EVENTS, 0.25);
    const third = Math.floor(EVENTS / 3);
    const first = await deployment.start('first');
    await deployment.send(events.slice(0, third));
    await until(
      'the first instance recomputed heads',
      async () => (await metricSum(first, 'streamfold_head_recomputes_total')) > 0,
      60_000,
      deployment.logs,
    );
    const second = await deployment.start('second');
    await deployment.send(events.slice(third));

    const expected = await embeddedAggregates(configFor(DIAMOND), events, 3);
    let behind: string[] = [];
    const report = () =>
      `\nbehind: ${behind.join(', ') || 'none'}${deployment.output.report(expected)}${deployment.logs()}`;
    await until(
      'every group committed the end of its topics',
      async () => {
        behind = await deployment.behind();
        return behind.length === 0;
      },
      90_000,
      report,
    );
    await until('the output converged', () => deployment.output.converged(expected), 30_000, report);
    assert.ok(
      (await metricSum(second, 'streamfold_consumed_messages_total')) > 0,
      `the joining instance consumed input of its own${deployment.logs()}`,
    );
    for (const instance of [first, second])
      assert.is(instance.child.exitCode, null, `both instances still run${deployment.logs()}`);
  } finally {
    await deployment.stop();
  }
}
