/**
 * A broker restart under the library's own producer: Apache Kafka comes back with its log and
 * producer state; Mokapi forgets producer ids, so every produce then answers
 * INVALID_PRODUCER_ID_MAPPING until the producer is replaced. Either way the library recovers alone.
 */
import * as assert from 'node:assert/strict';
import pino from 'pino';
import { createRest2Broker, type Rest2Broker } from '../../../services/rest2broker/index.ts';
import { type KafkaFixture, kafkaRestartable, startKafka } from '../../support/kafka.ts';
import { test, when } from '../../support/suite.ts';
import { startTopicReader } from './topic-reader.ts';

const TOPICS = { checkup: 1, orders: 1 };
/** Bound of each recovery wait: the broker's restart and the clients' reconnection on a busy machine. */
const RECOVERY_MS = 60_000;

let kafka: KafkaFixture;
let service: Rest2Broker;
let base: string;

const restartable = await kafkaRestartable();

test.before(async () => {
  if (!restartable) return;
  // A broker of the file's own: the run's shared one is never restarted.
  kafka = await startKafka({ topics: TOPICS, own: { nodes: 1 } });
  // The library owns the producer, as a service does: nothing restarts it but itself.
  service = createRest2Broker({
    brokers: kafka.brokers,
    kafkaProperties: kafka.properties,
    routes: [{ method: 'POST', path: '/orders', broker: { topic: kafka.topic('orders'), key: 'k' } }],
    checkUpTopic: kafka.topic('checkup'),
    produceTimeoutMs: 5000,
    flushTimeoutMs: 1000,
    service: { name: 'broker-restart', version: '1.0.0' },
    logger: pino({ level: process.env.LOG_LEVEL ?? 'silent' }),
  });
  const server = await service.listen({ hostname: '127.0.0.1', port: 0, handleSignals: false });
  base = `http://127.0.0.1:${server.port}`;
});

test.after(async () => {
  await service?.close();
  await kafka?.stop();
});

/** Asks until the answer has `status`, within `RECOVERY_MS`; returns every status seen. */
async function askUntil(status: number, ask: () => Promise<Response>): Promise<number[]> {
  const seen: number[] = [];
  for (const deadline = Date.now() + RECOVERY_MS; ; ) {
    const response = await ask();
    const body = await response.text();
    seen.push(response.status);
    if (response.status === status) return seen;
    if (Date.now() > deadline) {
      throw new Error(`no ${status} within ${RECOVERY_MS} ms; ${seen.length} answers, the last: ${body}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const checkUp = () => fetch(`${base}/-/check-up`);
const order = (body: string) => () => fetch(`${base}/orders`, { method: 'POST', body });

when(restartable, 'needs a broker of its own to restart (local Apache Kafka or Mokapi)')(
  'after a broker restart check-up returns to 200 and routes produce again, without a process restart',
  async () => {
    await askUntil(200, checkUp);
    assert.equal((await order('before')()).status, 204);

    await kafka.restart();
    const afterRestart = await askUntil(200, checkUp);
    const orderStatuses = await askUntil(204, order('after'));

    const reader = await startTopicReader(kafka, { [kafka.topic('orders')]: 1 });
    try {
      const records = await reader.waitFor(kafka.topic('orders'), 1, RECOVERY_MS);
      assert.ok(
        records.some((r) => r.value?.toString() === 'after'),
        `the restarted broker holds the order; check-up answers ${afterRestart.join(' ')}, orders ${orderStatuses.join(' ')}`,
      );
    } finally {
      await reader.stop();
    }
  },
);

test.run();
