import * as assert from 'node:assert/strict';
import { parseTopics } from '../../engine/cli/kafka.ts';
import { nodeConfig } from '../../local-kafka/node-config.ts';
import { test } from '../support/suite.ts';

const properties = (text: string) =>
  Object.fromEntries(
    text
      .trim()
      .split('\n')
      .map((line) => line.split(/=(.*)/s).slice(0, 2) as [string, string]),
  );

const nodes = [1, 2, 3].map((id) => ({ id, brokerPort: 9091 + id, controllerPort: 19091 + id }));

test('one node: a combined broker and controller, internal topics with one replica, no auto-created topics', () => {
  const config = properties(nodeConfig({ node: nodes[0]!, voters: nodes.slice(0, 1), logDir: '/data/1' }));
  assert.equal(config['process.roles'], 'broker,controller');
  assert.equal(config['controller.quorum.voters'], '1@127.0.0.1:19092');
  assert.equal(config.listeners, 'PLAINTEXT://127.0.0.1:9092,CONTROLLER://127.0.0.1:19092');
  assert.equal(config['advertised.listeners'], 'PLAINTEXT://127.0.0.1:9092');
  assert.equal(config['auto.create.topics.enable'], 'false');
  assert.equal(config['offsets.topic.replication.factor'], '1', 'more replicas than nodes would hang groups');
  assert.equal(config['transaction.state.log.min.isr'], '1');
  assert.equal(config['min.insync.replicas'], '1');
  assert.equal(config['log.dirs'], '/data/1');
});

test('three nodes: one static quorum, replication factor 3 and min.insync.replicas 2 everywhere', () => {
  const texts = nodes.map((node) =>
    properties(nodeConfig({ node, voters: nodes, logDir: `/data/${node.id}` })),
  );
  const voters = '1@127.0.0.1:19092,2@127.0.0.1:19093,3@127.0.0.1:19094';
  for (const [i, config] of texts.entries()) {
    assert.equal(config['node.id'], String(i + 1));
    assert.equal(config['controller.quorum.voters'], voters);
    assert.equal(config['default.replication.factor'], '3');
    assert.equal(config['min.insync.replicas'], '2');
    assert.equal(config['offsets.topic.replication.factor'], '3');
    assert.equal(config['share.coordinator.state.topic.min.isr'], '2');
  }
  assert.equal(texts[2]!.listeners, 'PLAINTEXT://127.0.0.1:9094,CONTROLLER://127.0.0.1:19094');
});

test('overrides win over the defaults', () => {
  const config = properties(
    nodeConfig({
      node: nodes[0]!,
      voters: nodes.slice(0, 1),
      logDir: '/d',
      overrides: { 'auto.create.topics.enable': 'true', 'producer.id.expiration.ms': '1000' },
    }),
  );
  assert.equal(config['auto.create.topics.enable'], 'true');
  assert.equal(config['producer.id.expiration.ms'], '1000');
});

test('--topics: name[:partitions], comma-separated; anything else is a usage error naming the entry', () => {
  assert.deepEqual(parseTopics('customers:2, orders:4,items'), { customers: 2, orders: 4, items: 1 });
  assert.deepEqual(parseTopics(''), {});
  for (const bad of ['a:0', 'a:x', 'a:1:2', ':3', 'a:1.5'])
    assert.throws(
      () => parseTopics(bad),
      new RegExp(`"${bad.replace('.', '\\.')}" is not name\\[:partitions\\]`),
    );
});

test.run();
