/**
 * UNKNOWN_PRODUCER_ID (59) on the producer error list, against Apache Kafka 4.1.1: a broker of
 * the file's own forgets an idle producer's state after 1 s (`producer.id.expiration.ms`, checked
 * every 500 ms). The engine's producer, idle past that, writes on: Kafka answers none of the
 * list's codes (since KIP-360 a broker takes the next sequence of a producer whose state it
 * expired), the batches keep one producer id and their sequences, nothing is replaced or logged.
 * 59 is what older brokers answered there; the list keeps it for them and for other clusters.
 */
import { join } from 'node:path';
import pino from 'pino';
import * as assert from 'uvu/assert';
import { createTopics } from '../../../local-kafka/admin.ts';
import { type LocalKafka, startLocalKafka } from '../../../local-kafka/cluster.ts';
import { createKafkaBroker } from '../../../operators/broker/kafka/index.ts';
import { kafkaRestartable, realKafka } from '../../support/kafka.ts';
import { segmentBatches } from '../../support/log-segment.ts';
import { standInLog } from '../../support/stand-in-log.ts';
import { test, when } from '../../support/suite.ts';

const EXPIRATION_MS = 1000;
const it = when((await realKafka()) && (await kafkaRestartable()), 'needs a local Apache Kafka of its own');

it('an idempotent producer idle past producer.id.expiration.ms writes on: no error of the list', async () => {
  const cluster: LocalKafka = await startLocalKafka({
    logFile: () => standInLog('kafka-expiry').path,
    overrides: {
      'producer.id.expiration.ms': String(EXPIRATION_MS),
      'producer.id.expiration.check.interval.ms': '500',
    },
  });
  const logged: string[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => logged.push(line) });
  try {
    await createTopics(cluster.bootstrap, { expiring: 1 });
    const producer = createKafkaBroker({
      properties: { 'bootstrap.servers': cluster.bootstrap },
      logger,
    }).producer();
    await producer.connect();
    const write = async (tag: string) => {
      for (let i = 0; i < 3; i++)
        await producer.produce({ topic: 'expiring', key: null, value: Buffer.from(`${tag}${i}`) });
    };
    await write('before');
    // The expiry is the broker's own timer: only time passing lets it run (twice the bound, plus a check).
    await new Promise((resolve) => setTimeout(resolve, 2 * EXPIRATION_MS + 500));
    await write('after');
    await producer.disconnect();

    const batches = segmentBatches(join(cluster.dataDir, 'node-1'), 'expiring', 0);
    assert.is(batches.length, 6);
    assert.equal(
      new Set(batches.map((b) => b.producerId)).size,
      1,
      'one producer id: the producer was not replaced',
    );
    assert.equal(
      batches.map((b) => b.baseSequence),
      [0, 1, 2, 3, 4, 5],
      'the sequence went on after the expiry',
    );
    assert.equal(logged, [], 'no producer error was logged');
  } finally {
    await cluster.stop();
  }
});

test.run();
