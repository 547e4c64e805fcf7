/**
 * Stopping every instance and starting them again, on a real consumer group: two `streamfold run`
 * instances process a seeded diamond workload on topics of different partition counts; once the
 * output converged both get SIGTERM. Each exits 0, and every group's committed offsets are then
 * the end of its topic: everything processed, nothing beyond. Two new instances start from those
 * offsets: they read only what is written after (the input counter counts exactly that), and
 * the output converges on the embedded result of all the events.
 */
import * as assert from 'uvu/assert';
import { configFor, DIAMOND } from '../../support/configs.ts';
import { embeddedAggregates } from '../../support/converge.ts';
import { startDeployment } from '../../support/deployment.ts';
import { metricSum } from '../../support/instances.ts';
import { diamondEvents } from '../../support/random-events.ts';
import { test } from '../../support/suite.ts';
import { until } from '../../support/until.ts';

const BEFORE = 200;
const AFTER = 60;

test('after SIGTERM of every instance the committed offsets are the end of what was processed, and new instances resume there', async () => {
  const deployment = await startDeployment({
    id: 'restartAll',
    partitions: { customers: 2, orders: 3, payments: 2, refunds: 1, internal: 2, output: 1 },
  });
  try {
    const events = diamondEvents(41, BEFORE + AFTER, 0.2);
    const converge = async (count: number) => {
      const expected = await embeddedAggregates(configFor(DIAMOND), events.slice(0, count), 3);
      await until(
        `the output converged on the first ${count} events`,
        () => deployment.output.converged(expected),
        60_000,
        () => deployment.output.report(expected) + deployment.logs(),
      );
    };
    const first = await Promise.all([deployment.start('first'), deployment.start('second')]);
    await deployment.send(events.slice(0, BEFORE));
    await converge(BEFORE);

    for (const instance of first) instance.child.kill('SIGTERM');
    assert.equal(await Promise.all(first.map((i) => i.exited)), [0, 0], `both exit 0${deployment.logs()}`);
    assert.equal(await deployment.behind(), [], 'every group committed the end of its topics');

    const next = await Promise.all([deployment.start('first-again'), deployment.start('second-again')]);
    await deployment.send(events.slice(BEFORE));
    await converge(BEFORE + AFTER);
    await until(
      'every group committed the end of its topics again',
      async () => (await deployment.behind()).length === 0,
      30_000,
    );
    const consumed = await Promise.all(next.map((i) => metricSum(i, 'streamfold_consumed_messages_total')));
    assert.is(consumed[0]! + consumed[1]!, AFTER, `only what came after the restart was read (${consumed})`);
  } finally {
    await deployment.stop();
  }
});

test.run();
