import * as assert from 'node:assert/strict';
import pino from 'pino';
import { createKafkaBroker } from '../../../operators/broker/kafka/index.ts';
import type { BrokerProducer } from '../../../operators/broker/types.ts';
import { createRest2Broker, type Rest2Broker } from '../../../services/rest2broker/index.ts';
import { type KafkaFixture, startKafka } from '../../support/kafka.ts';
import { test } from '../../support/suite.ts';

const PRODUCE_TIMEOUT_MS = 2000;

let kafka: KafkaFixture;
let producer: BrokerProducer;
let service: Rest2Broker;
let base: string;

/**
 * Fresh producers try for up to 60 s (a real broker answers the first; a fresh Mokapi connection
 * may need several socket timeouts on a loaded machine). Each keeps a short timeout, which also
 * bounds its flush and disconnect against the stopped broker at the end.
 */
async function connectedProducer(): Promise<BrokerProducer> {
  for (const deadline = Date.now() + 60_000; ; ) {
    const candidate = createKafkaBroker({ properties: kafka.properties, timeoutMs: 3000 }).producer();
    try {
      await candidate.connect();
      return candidate;
    } catch (error) {
      if (Date.now() > deadline) throw error;
    }
  }
}

test.before(async () => {
  kafka = await startKafka({ topics: { checkup: 1, orders: 1 } });
  // The caller owns a producer it passes in: it connects it, the service only flushes it on close.
  producer = await connectedProducer();
  service = createRest2Broker({
    producer,
    routes: [{ method: 'POST', path: '/orders', broker: { topic: kafka.topic('orders') } }],
    checkUpTopic: kafka.topic('checkup'),
    produceTimeoutMs: PRODUCE_TIMEOUT_MS,
    flushTimeoutMs: 1000,
    service: { name: 'broker-down', version: '1.2.3' },
    logger: pino({ level: 'silent' }),
  });
  const server = await service.listen({ hostname: '127.0.0.1', port: 0, handleSignals: false });
  base = `http://127.0.0.1:${server.port}`;
});

test.after(async () => {
  await service?.close();
  await producer?.disconnect();
  await kafka?.stop();
});

test('check-up answers 200 while the broker acknowledges the probe', async () => {
  // The producer's first acknowledgement may take a moment (Mokapi: seconds): retry within a bound.
  const deadline = Date.now() + 60_000;
  let response = await fetch(`${base}/-/check-up`);
  while (response.status !== 200 && Date.now() < deadline) response = await fetch(`${base}/-/check-up`);
  assert.equal(response.status, 200);
  assert.deepEqual(await response.json(), { name: 'broker-down', version: '1.2.3', status: 'OK' });
});

test('with the broker stopped, check-up and routes answer 503 within the produce timeout', async () => {
  await kafka.stop();
  const started = Date.now();
  const checkUp = await fetch(`${base}/-/check-up`);
  const elapsed = Date.now() - started;
  assert.equal(checkUp.status, 503);
  const body = (await checkUp.json()) as Record<string, unknown>;
  assert.equal(body.status, 'KO');
  assert.equal(body.name, 'broker-down');
  assert.equal(body.statusCode, 503);
  assert.match(String(body.message), /within 2000 ms|failed/);
  // Bounded by the produce timeout, not librdkafka's message timeout (300 s by default); the
  // margin is for a loaded machine (two test files side by side on two cores).
  assert.ok(elapsed < PRODUCE_TIMEOUT_MS + 10_000, `answered after ${elapsed} ms`);

  const order = await fetch(`${base}/orders`, { method: 'POST', body: 'x' });
  assert.equal(order.status, 503);
  assert.equal(((await order.json()) as { error: string }).error, 'Service Unavailable');
  // Liveness does not depend on the broker.
  assert.equal((await fetch(`${base}/-/healthz`)).status, 200);
});

test.run();
