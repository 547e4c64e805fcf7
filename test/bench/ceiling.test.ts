import * as assert from 'uvu/assert';
import { runCeiling } from '../../bench/harness/ceiling.ts';
import type { ProducerRecord } from '../../operators/broker/types.ts';
import { test } from '../support/suite.ts';

const records = (count: number): ProducerRecord[] =>
  Array.from({ length: count }, (_, i) => ({
    topic: i % 3 === 0 ? 'customers' : 'orders',
    key: Buffer.from(JSON.stringify({ id: i })),
    value: Buffer.from(JSON.stringify({ op: 'c', before: null, after: { id: i, name: `n${i}` } })),
  }));

test('ceiling: every event is echoed once to the output, whatever the hops', async () => {
  const input = records(2_500);
  const inputBytes = input.reduce((sum, r) => sum + (r.value?.length ?? 0), 0);
  for (const hops of [1, 2, 3]) {
    const run = await runCeiling(input, ['customers', 'orders'], 4, { hops });
    assert.is(run.events, 2_500, `hops ${hops}: fed`);
    assert.is(run.outputs, 2_500, `hops ${hops}: read from the output`);
    // JSON.stringify(JSON.parse(x)) of compact JSON is x: the echo keeps every byte.
    assert.is(run.outputBytes, inputBytes, `hops ${hops}: bytes`);
    assert.ok(run.seconds > 0);
  }
});

test('ceiling: hops must be a positive integer', async () => {
  for (const hops of [0, 1.5, -1]) {
    try {
      await runCeiling(records(1), ['customers', 'orders'], 1, { hops });
      assert.unreachable(`hops ${hops} accepted`);
    } catch (error) {
      assert.match((error as Error).message, /hops must be a positive integer/);
    }
  }
});

test.run();
