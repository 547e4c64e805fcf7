/** The control plane steering an engine on the real broker (`startKafka`): the committed offsets are Kafka's. */
import { type KafkaFixture, startKafka } from '../../../support/kafka.ts';
import { test } from '../../../support/suite.ts';
import { pauseResumeScenario } from './scenario.ts';
import { withEngine } from './support.ts';

let kafka: KafkaFixture;

test.before(async () => {
  kafka = await startKafka({ topics: { customers: 2, products: 2, internal: 2, views: 2 } });
});
test.after(async () => {
  await kafka?.stop();
});

test('on the real broker: feedback appears, resume-all releases, pause stops the committed offsets, resume continues from them', async () => {
  await withEngine({ kafka }, async (cp, h) => {
    // Group joins and offset commits take seconds on a broker, not milliseconds.
    await pauseResumeScenario(cp, h, 90_000);
  });
});

test.run();
