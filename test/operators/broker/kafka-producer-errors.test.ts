/**
 * The producer error list (operators/broker/kafka/errors.ts) against what a real broker answers.
 * A delivery report's error reaches JS without its code and with librdkafka's text lowercased
 * after its `Broker: ` origin: the list recognises 45/47/49/59 by that text, so the form is
 * checked on an answer a real broker gives on demand (a record above the topic's
 * `max.message.bytes`). That refusal is not on the list: the producer is kept and goes on.
 * The listed codes themselves could not be provoked on Apache Kafka 4.1.1 (README "Producer
 * recovery"; the issue 28 report).
 */
import Kafka from 'node-rdkafka';
import * as assert from 'uvu/assert';
import { createTopics, deleteTopics } from '../../../local-kafka/admin.ts';
import { deliveryReportText, isFatalProducerError } from '../../../operators/broker/kafka/errors.ts';
import { createKafkaBroker, KafkaClientError } from '../../../operators/broker/kafka/index.ts';
import { type KafkaFixture, realKafka, startKafka } from '../../support/kafka.ts';
import { test, when } from '../../support/suite.ts';

const it = when(await realKafka(), 'Mokapi does not enforce max.message.bytes');

it('a broker’s refusal in a delivery report: no code, the text the list matches on; a transient error keeps the producer', async () => {
  const kafka: KafkaFixture = await startKafka({ topics: {} });
  const topic = `small-records-${Date.now().toString(36)}`;
  await createTopics(kafka.brokers, { [topic]: 1 }, { config: { 'max.message.bytes': '2000' } });
  const producer = createKafkaBroker({ properties: kafka.properties }).producer();
  await producer.connect();
  try {
    const first = await producer.produce({ topic, key: null, value: Buffer.from('small') });
    const refused = await producer.produce({ topic, key: null, value: Buffer.alloc(5000, 1) }).then(
      () => assert.unreachable('a record above max.message.bytes is refused'),
      (error: unknown) => error,
    );
    assert.instance(refused, KafkaClientError);
    const cause = (refused as KafkaClientError).cause as Kafka.LibrdKafkaError;
    assert.is(
      cause.code,
      Kafka.CODES.ERRORS.ERR_UNKNOWN,
      'node-rdkafka hands the report over without its code',
    );
    assert.is(cause.message, deliveryReportText(Kafka.CODES.ERRORS.ERR_MSG_SIZE_TOO_LARGE));
    assert.is(isFatalProducerError(cause), false);
    const next = await producer.produce({ topic, key: null, value: Buffer.from('after') });
    assert.is(next.offset, first.offset + 1, 'the same producer goes on');
  } finally {
    await producer.disconnect();
    await deleteTopics(kafka.brokers, [topic]);
    await kafka.stop();
  }
});

test.run();
