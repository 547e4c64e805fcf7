import * as assert from 'uvu/assert';
import { refreshHeads } from '../../../engine/refresh/refresh.ts';
import { configFor, SINGLE_VIEW } from '../../support/configs.ts';
import { create, runEvents } from '../../support/embedded.ts';
import { test } from '../../support/suite.ts';

test('refresh re-emits the current aggregate of every head record as r, through the engine', async () => {
  const config = configFor(SINGLE_VIEW, (d) => {
    d.processor.mode = 'operation-forwarding';
  });
  const customers = Array.from({ length: 25 }, (_, i) => create('customers', { id: i + 1 }));
  const run = await runEvents(config, [...customers, create('orders', { id: 100, customerId: 3 })], {
    keep: true,
  });
  const before = run.outputs.length;
  const progress: number[] = [];
  const producer = run.embedded.broker.producer();
  await producer.connect();
  const { enqueued } = await refreshHeads({
    store: run.embedded.store,
    producer,
    internalTopic: config.processor.internalUpdates.config.topic,
    heads: ['customers'],
    batchSize: 10,
    onProgress: (done, total) => progress.push(done / total),
  });
  await run.embedded.drain();
  await producer.disconnect();
  await run.embedded.stop();

  assert.is(enqueued, 25);
  assert.equal(progress, [0.4, 0.8, 1], 'progress after each batch of 10');
  const refreshed = run.outputs.slice(before);
  assert.is(refreshed.length, 25, 'one message per head record');
  for (const message of refreshed) {
    assert.is(message.value?.op, 'r', 'a refresh is a snapshot read');
    const key = JSON.stringify(message.key);
    const previous = run.outputs
      .slice(0, before)
      .filter((o) => JSON.stringify(o.key) === key)
      .at(-1);
    assert.equal(message.value?.after, previous?.value?.after, `${key}: the same aggregate again`);
    assert.equal(message.value?.before, previous?.value?.after, `${key}: before is the last emitted`);
  }
});

test.run();
