/**
 * Issue 28 (b): REST-to-broker on a three-node cluster (replication factor 3,
 * `min.insync.replicas=2`), its own producer (idempotent, `acks=all`), four clients posting
 * without pause, each request a record of its own id. Phases:
 * 1. all nodes up: answers 204;
 * 2. the partition's leader SIGKILLed: a new leader is elected, answers 204 again;
 * 3. the new leader SIGKILLed too: one node of three, no controller quorum and no in-sync quorum, so
 *    no leader and no acknowledgement: every request started now answers 503, each within the
 *    produce timeout (no hang);
 * 4. one node started again: answers 204 again.
 * At the end every record answered 204 is on the topic (read back from offset 0). REPEAT=n runs
 * it n times on the file's cluster.
 */
import * as assert from 'node:assert/strict';
import { type FailoverCluster, freshTopics, leaderOf, restore, until } from './cluster.ts';
import { failoverTest } from './repeat.ts';
import {
  ANSWER_MARGIN_MS,
  expectAcknowledgedOnTopic,
  PRODUCE_TIMEOUT_MS,
  startClients,
  startRest2Broker,
} from './rest2broker-clients.ts';

/** Answers each phase waits for before the next one. */
const ENOUGH = 10;

async function runOnce(kafka: FailoverCluster): Promise<string> {
  const topics = await freshTopics(kafka, { orders: 1 });
  const service = await startRest2Broker(kafka, topics.orders);
  const clients = startClients(service.base);
  const summary = clients.summary;
  const acknowledgedSince = (from: number) => clients.since(from).filter((a) => a.status === 204).length;
  try {
    const begun = Date.now();
    await until(
      'answers 204 on a whole cluster',
      () => acknowledgedSince(begun) >= ENOUGH,
      60_000,
      summary(begun),
    );

    const first = await leaderOf(kafka, topics.orders, 0);
    await kafka.cluster.node(first).kill();
    const leaderKilled = Date.now();
    await until(
      '204 again under a new leader',
      () => acknowledgedSince(leaderKilled) >= ENOUGH,
      60_000,
      summary(leaderKilled),
    );

    let second = -1;
    await until('the metadata names the new leader', async () => {
      second = await leaderOf(kafka, topics.orders, 0);
      return second !== first;
    });
    await kafka.cluster.node(second).kill();
    const quorumLost = Date.now();
    await until(
      '503 without a leader',
      () => clients.since(quorumLost).filter((a) => a.status === 503).length >= ENOUGH,
      60_000,
      summary(quorumLost),
    );
    const refused = Date.now();
    const leaderless = clients.since(quorumLost);

    await kafka.cluster.node(first).start();
    const nodeBack = Date.now();
    await until(
      '204 again with a node back',
      () => acknowledgedSince(nodeBack) >= ENOUGH,
      90_000,
      summary(nodeBack),
    );
    const recovered = Date.now();
    await clients.stop();

    assert.deepEqual(
      leaderless.filter((a) => a.status !== 503).map((a) => `${a.id}: ${a.status} ${a.body}`),
      [],
      'no request started without a leader is answered but 503',
    );
    const slow = clients.answers.filter((a) => a.ms > PRODUCE_TIMEOUT_MS + ANSWER_MARGIN_MS);
    assert.deepEqual(
      slow.map((a) => `${a.id}: ${a.ms} ms, ${a.status}`),
      [],
      'every answer within the produce timeout',
    );

    const acknowledged = clients.answers.filter((a) => a.status === 204).map((a) => a.id);
    await restore(kafka, [topics.orders]);
    await expectAcknowledgedOnTopic(kafka, topics.orders, 1, acknowledged);
    const seconds = (from: number, to: number) => `${((to - from) / 1000).toFixed(1)} s`;
    return (
      `${acknowledged.length} acknowledged and on the topic, ${leaderless.length} answered 503 without a leader; ` +
      `node ${first} killed: ${ENOUGH} × 204 after ${seconds(leaderKilled, quorumLost)}, node ${second} killed: ` +
      `${ENOUGH} × 503 after ${seconds(quorumLost, refused)}, node ${first} started again in ${seconds(refused, nodeBack)}: ` +
      `${ENOUGH} × 204 after ${seconds(nodeBack, recovered)}`
    );
  } finally {
    await clients.stop();
    await service.close();
    await restore(kafka, [topics.orders]);
  }
}

await failoverTest(
  'leader killed, then no leader: 503 within the produce timeout, 204 again with a node back, every 204 on the topic',
  'rest2broker failover',
  runOnce,
);
