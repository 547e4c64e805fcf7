/**
 * The client watchdog (operators/broker/kafka/watchdog.ts): its verdict on librdkafka's statistics,
 * and, on the real broker, what a replacement does to a consumer in a pipeline and to a producer
 * with records in flight. A replacement is forced through the watchdog's `stranded` verdict (the
 * librdkafka defect it exists for needs a broker's controlled shutdown to happen at the wrong
 * moment; the restart tests exercise that path).
 */
import * as assert from 'node:assert/strict';
import pino from 'pino';
import { Registry } from 'prom-client';
import { Subject } from 'rxjs';
import { createKafkaBroker } from '../../../operators/broker/kafka/index.ts';
import { ClientWatchdog, strandedReason } from '../../../operators/broker/kafka/watchdog.ts';
import type { ConsumedMessage } from '../../../operators/broker/types.ts';
import { commitAcknowledged, consumeBatches } from '../../../operators/index.ts';
import { type KafkaFixture, realKafka, startKafka } from '../../support/kafka.ts';
import { test, when } from '../../support/suite.ts';
import { until } from '../../support/until.ts';

const HEALTHY = {
  brokers: {
    '127.0.0.1:9092/1': { source: 'learned', state: 'UP' },
    GroupCoordinator: { source: 'logical', state: 'UP' },
  },
};
const CLUSTER_DOWN = {
  brokers: {
    '127.0.0.1:9092/1': { source: 'learned', state: 'CONNECT' },
    ':0/internal': { source: 'internal', state: 'INIT' },
  },
};
const STRANDED = {
  brokers: {
    ':0/internal': { source: 'internal', state: 'INIT' },
    GroupCoordinator: { source: 'logical', state: 'INIT' },
  },
};

test('a client with a learned or configured broker is not stranded, even when that broker is down', () => {
  assert.equal(strandedReason(HEALTHY), null);
  assert.equal(strandedReason(CLUSTER_DOWN), null);
  assert.equal(
    strandedReason({ brokers: { 'b:9092/bootstrap': { source: 'configured', state: 'UP' } } }),
    null,
  );
});

test('a client with only internal and logical broker handles is stranded (librdkafka#5301)', () => {
  assert.match(strandedReason(STRANDED) ?? '', /no broker left.*5301/);
  assert.match(strandedReason({}) ?? '', /no broker left/);
});

test('the watchdog reports once after the bound, not on a single snapshot, and again only after a recovery', () => {
  let now = 0;
  const reports: string[] = [];
  const watchdog = new ClientWatchdog({
    strandedAfterMs: 10_000,
    onStranded: (reason) => reports.push(reason),
    now: () => now,
  });
  const observe = (statistics: object, at: number) => {
    now = at;
    watchdog.observe(JSON.stringify(statistics));
  };
  observe(STRANDED, 0);
  observe(HEALTHY, 1_000);
  observe(STRANDED, 2_000);
  observe(STRANDED, 11_999);
  assert.equal(reports.length, 0, 'stranded for 9.999 s since the recovery: not yet');
  observe(STRANDED, 12_000);
  observe(STRANDED, 30_000);
  assert.equal(reports.length, 1, 'once per stranded spell');
  observe(HEALTHY, 31_000);
  observe(STRANDED, 32_000);
  observe(STRANDED, 42_000);
  assert.equal(reports.length, 2);
  watchdog.observe('not json');
  assert.equal(reports.length, 2, 'unreadable statistics give no verdict');
});

let kafka: KafkaFixture | undefined;
test.before(async () => {
  if (await realKafka()) kafka = await startKafka({ topics: { watched: 3, produced: 2 } });
});
test.after(async () => {
  await kafka?.stop();
});

/** The replacement tests need librdkafka talking to a real broker (the run's local Apache Kafka). */
const onRealKafka = when(
  await realKafka(),
  'needs a real Kafka broker: librdkafka statistics and reconnects (the runner never runs on Mokapi)',
);

/** A broker whose clients the test strands at will: while stranded, every verdict is "stranded". */
function strandableBroker(fixture: KafkaFixture) {
  const registry = new Registry();
  const lines: Array<{ msg: string; reason?: string }> = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  let stranded = false;
  const broker = createKafkaBroker({
    properties: fixture.properties,
    logger,
    registry,
    watchdog: {
      strandedAfterMs: 0,
      statisticsIntervalMs: 200,
      stranded: () => (stranded ? 'forced by the test' : null),
    },
  });
  const replaced = async (client: string) =>
    (await registry.getSingleMetricAsString('streamfold_kafka_clients_replaced_total')).includes(
      `client="${client}"} 1`,
    );
  return {
    broker,
    lines,
    /** Strands every client until the watchdog has replaced one of kind `client`, then lets them be. */
    async strandUntilReplaced(client: 'consumer' | 'producer'): Promise<void> {
      stranded = true;
      try {
        await until(`the ${client} to be replaced`, () => replaced(client), 30_000);
      } finally {
        stranded = false;
      }
    },
  };
}

/** A connected producer of a strandable broker, and the topic it writes to. */
async function strandableProducer(fixture: KafkaFixture) {
  const strandable = strandableBroker(fixture);
  const producer = strandable.broker.producer();
  await producer.connect();
  return { ...strandable, producer, topic: fixture.topic('produced') };
}

onRealKafka(
  'a replaced consumer in a pipeline: every message is handled, the group commits to the end, and the replacement is counted and logged',
  async () => {
    const fixture = kafka as KafkaFixture;
    const topic = fixture.topic('watched');
    const { broker, lines, strandUntilReplaced } = strandableBroker(fixture);
    const producer = broker.producer();
    await producer.connect();
    const produce = (from: number, to: number) =>
      Promise.all(
        Array.from({ length: to - from }, (_, i) =>
          producer.produce({ topic, key: Buffer.from(`k${from + i}`), value: Buffer.from(String(from + i)) }),
        ),
      );
    await produce(0, 300);

    const consumer = broker.consumer({ groupId: `watchdog-${topic}` });
    await consumer.connect();
    const seen = new Set<number>();
    const stop = new Subject<void>();
    const done = new Promise<void>((resolve, reject) =>
      consumeBatches(consumer, { topics: [topic], maxBatchSize: 50, maxInFlight: 2, drain: stop })
        .pipe(commitAcknowledged(consumer, { intervalMs: 100 }))
        .subscribe({
          next: (batch) => {
            for (const m of batch.items as ConsumedMessage[]) seen.add(Number(String(m.value)));
          },
          error: reject,
          complete: resolve,
        }),
    );
    await until('the first 300 messages', () => seen.size >= 300, 60_000);
    await strandUntilReplaced('consumer');
    await produce(300, 600);
    await until('all 600 messages after the replacement', () => seen.size === 600, 90_000);
    await until(
      'the new client to commit every partition to its end',
      async () =>
        (await consumer.lag()).reduce((sum, p) => sum + p.lag, 0) === 0 && consumer.assignment().length === 3,
      60_000,
    );
    stop.next();
    await done;
    await consumer.disconnect();
    await producer.disconnect();
    assert.ok(
      lines.some(
        (l) => l.msg === 'kafka consumer stranded: replacing its client' && l.reason === 'forced by the test',
      ),
      'a warning names the reason',
    );
  },
);

onRealKafka(
  'a replaced producer: records in flight are either acknowledged or fail at once, and a new client takes every later record',
  async () => {
    const { producer, topic, strandUntilReplaced } = await strandableProducer(kafka as KafkaFixture);
    const inFlight = Array.from({ length: 2000 }, (_, i) =>
      producer.produce({ topic, key: null, value: Buffer.from(String(i)) }).then(
        () => 'acknowledged',
        (error: Error) => error.message,
      ),
    );
    await strandUntilReplaced('producer');
    const outcomes = await Promise.all(inFlight);
    for (const outcome of outcomes)
      assert.ok(
        outcome === 'acknowledged' || /no broker left/.test(outcome),
        `unexpected outcome: ${outcome}`,
      );
    const later = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        producer.produce({ topic, key: null, value: Buffer.from(`later ${i}`) }),
      ),
    );
    assert.equal(later.length, 100, 'the new client acknowledges every later record');
    await producer.disconnect();
  },
);

onRealKafka(
  'an idle stranded producer is replaced before its next record, not when records already wait on it',
  async () => {
    const { producer, topic, strandUntilReplaced } = await strandableProducer(kafka as KafkaFixture);
    try {
      await producer.produce({ topic, key: null, value: Buffer.from('before') });
      await strandUntilReplaced('producer');
      const report = await producer.produce({ topic, key: null, value: Buffer.from('after') });
      assert.equal(report.topic, topic);
    } finally {
      await producer.disconnect();
    }
  },
);

test.run();
