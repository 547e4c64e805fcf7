import * as assert from 'uvu/assert';
import { runEngine } from '../../bench/harness/engine-run.ts';
import { runNaive } from '../../bench/harness/naive-run.ts';
import { WORKLOADS } from '../../bench/workloads/index.ts';
import { test } from '../support/suite.ts';

const SEED = 7;

test('naive peer, W4: each event recomputes and emits its head at once, nothing compressed', async () => {
  const workload = WORKLOADS.W4;
  const stream = [...workload.stream(600, SEED, 0)];
  const run = await runNaive({ workload, setup: workload.setup(SEED, 0), stream, partitions: 4 });
  assert.is(run.events, 600);
  assert.is(run.recomputes, 600, 'one recompute per event');
  assert.ok(run.outputs >= 600, `an output (and a tombstone after a d) per event: ${run.outputs}`);
  assert.ok(run.seconds > 0);
});

test("naive peer, W1: after the unmeasured setup, more recomputes and store requests than the engine's", async () => {
  const workload = WORKLOADS.W1;
  const stream = [...workload.stream(3_000, SEED, 0)];
  const options = { workload, setup: workload.setup(SEED, 0), stream, partitions: 4 };
  const naive = await runNaive(options);
  const engine = await runEngine({ ...options, store: 'memory' });
  assert.is(naive.events, engine.events);
  assert.ok(naive.recomputes > engine.recomputes, `${naive.recomputes} > ${engine.recomputes}`);
  assert.ok(naive.roundTrips > engine.roundTrips, `${naive.roundTrips} > ${engine.roundTrips}`);
  assert.ok(naive.outputs > engine.outputs, 'an output per recompute, none merged by a window');
});

test.run();
