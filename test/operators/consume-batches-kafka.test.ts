/**
 * consumeBatches on the real broker, where librdkafka's own pause state matters: a partition keeps
 * its pause across a revocation and its next assignment (librdkafka#1849), so a resume made while
 * it was not assigned must still reach it once it is assigned again.
 */
import * as assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { BehaviorSubject, Subject } from 'rxjs';
import { createKafkaBroker } from '../../operators/broker/kafka/index.ts';
import type { RebalanceEvent } from '../../operators/broker/types.ts';
import { acknowledge, consumeBatches } from '../../operators/index.ts';
import { type KafkaFixture, realKafka, startKafka } from '../support/kafka.ts';
import { test, when } from '../support/suite.ts';
import { until } from '../support/until.ts';

let kafka: KafkaFixture | undefined;
test.before(async () => {
  if (await realKafka()) kafka = await startKafka({ topics: { gated: 2, other: 2 } });
});
test.after(async () => {
  await kafka?.stop();
});

when(await realKafka(), 'librdkafka pause state needs the real client')(
  'a control-plane resume that arrives while the partitions are revoked reaches them once they are assigned again',
  async () => {
    const fixture = kafka as KafkaFixture;
    const broker = createKafkaBroker({ properties: fixture.properties });
    const group = `resume-revoked-${randomUUID()}`;
    const producer = broker.producer();
    await producer.connect();
    for (let i = 0; i < 10; i++)
      await producer.produce({
        topic: fixture.topic('gated'),
        key: Buffer.from(`k${i}`),
        value: Buffer.from('v'),
      });

    const consumer = broker.consumer({ groupId: group });
    await consumer.connect();
    const paused = new BehaviorSubject(true);
    const events = new Subject<RebalanceEvent>();
    // The resume lands exactly while the group takes the partitions away.
    events.subscribe((event) => {
      if (event.kind === 'revoke' && paused.value) paused.next(false);
    });
    let consumed = 0;
    const subscription = consumeBatches(consumer, {
      topics: [fixture.topic('gated')],
      maxBatchSize: 5,
      maxInFlight: 2,
      paused,
      events,
    }).subscribe((batch) => {
      consumed += batch.items.length;
      acknowledge(batch);
    });
    await until('both partitions are assigned (paused)', () => consumer.assignment().length === 2, 60_000);
    assert.equal(consumed, 0, 'nothing is read while paused');

    // A second member of the group (reading another topic) makes it rebalance.
    const other = broker.consumer({ groupId: group });
    await other.connect();
    other.subscribe([fixture.topic('other')]);
    let polling = true;
    const otherPolls = (async () => {
      while (polling) await other.consume(10, 100);
    })();
    try {
      await until(
        'all 10 messages are read after the resume',
        () => consumed === 10,
        60_000,
        () => ` (read ${consumed})`,
      );
    } finally {
      polling = false;
      subscription.unsubscribe();
      await otherPolls.catch(() => undefined);
      await Promise.allSettled([other.disconnect(), consumer.disconnect(), producer.disconnect()]);
    }
  },
);

test.run();
