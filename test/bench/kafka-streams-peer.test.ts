/**
 * The Kafka Streams peer of the Kafka-mode benchmark does the engine's work: the same seeded W1
 * stream (creates, updates, deletes, children moving between parents) and W4 stream go through
 * the engine in Kafka mode and through the peer on the test broker, side by side, and their
 * output topics end in the same state per head key (`bench/harness/output-equality.ts`). Also the
 * equality check itself, on hand-made outputs.
 */
import * as assert from 'uvu/assert';
import { startKafkaEngine } from '../../bench/harness/kafka-engine.ts';
import {
  buildStreamsPeer,
  peerToolsPresent,
  startStreamsPeer,
} from '../../bench/harness/kafka-streams-peer.ts';
import { type KafkaTarget, type RunTopics, until } from '../../bench/harness/kafka-target.ts';
import {
  compareFinalStates,
  FinalStateCollector,
  formatComparison,
  outputFinalState,
} from '../../bench/harness/output-equality.ts';
import { type BenchEvent, WORKLOADS, type WorkloadId } from '../../bench/workloads/index.ts';
import { createEngineMetrics } from '../../engine/metrics/index.ts';
import { MemoryStore } from '../../engine/store/index.ts';
import { createKafkaBroker } from '../../operators/broker/kafka/index.ts';
import type { ConsumedMessage } from '../../operators/broker/types.ts';
import { type KafkaFixture, realKafka, startKafka } from '../support/kafka.ts';
import { test, when } from '../support/suite.ts';

const PARTITIONS = 4;
const RUNS = { W1: { events: 4000, seed: 7 }, W4: { events: 2000, seed: 11 } } as const;
const NODES = { W1: ['customers', 'orders', 'items'], W4: ['customers'] } as const;
const runnable = (await realKafka()) && peerToolsPresent();

let kafka: KafkaFixture | undefined;
test.before(async () => {
  if (!runnable) return;
  // Built before the clock of any test starts (the first time: Maven resolves Kafka Streams).
  await buildStreamsPeer();
  const topics: Record<string, number> = {};
  for (const id of ['W1', 'W4'] as const)
    for (const name of [...NODES[id], 'internal', 'engine', 'peer']) topics[`${id}.${name}`] = PARTITIONS;
  kafka = await startKafka({ topics });
});
test.after(async () => {
  await kafka?.stop();
});

/** Input changes of a stream: deletes per node, and children whose parent changed (moves). */
function changes(events: readonly BenchEvent[]): { deletes: Set<string>; moves: number } {
  const deletes = new Set<string>();
  const parents = new Map<string, unknown>();
  let moves = 0;
  for (const { record } of events) {
    const { op, after } = JSON.parse((record.value as Buffer).toString()) as {
      op: string;
      after: Record<string, unknown> | null;
    };
    const id = `${record.topic}:${(record.key as Buffer).toString()}`;
    if (op === 'd') deletes.add(record.topic);
    const parent = after?.customerId ?? after?.orderId;
    if (parent === undefined) continue;
    if (op === 'u' && parents.has(id) && parents.get(id) !== parent) moves++;
    parents.set(id, parent);
  }
  return { deletes, moves };
}

async function bothOn(id: WorkloadId): Promise<void> {
  const began = Date.now();
  const fixture = kafka as KafkaFixture;
  const { events: count, seed } = RUNS[id as 'W1' | 'W4'];
  const workload = WORKLOADS[id];
  const events = [...workload.stream(count, seed, 0)];
  const nodes = NODES[id as 'W1' | 'W4'];
  const inputs = new Map<string, string>(nodes.map((n) => [n, fixture.topic(`${id}.${n}`)]));
  const engineTopics: RunTopics = {
    inputs,
    internal: fixture.topic(`${id}.internal`),
    output: fixture.topic(`${id}.engine`),
  };
  const peerTopics: RunTopics = { ...engineTopics, output: fixture.topic(`${id}.peer`) };

  const broker = createKafkaBroker({ properties: fixture.properties });
  // Hashed as Kafka's Java clients do: the peer's key joins need it (the benchmark does the same).
  const producer = broker.producer({ properties: { partitioner: 'murmur2_random' } });
  await producer.connect();
  try {
    await Promise.all(
      events.map(({ record }) => producer.produce({ ...record, topic: inputs.get(record.topic) as string })),
    );
  } finally {
    await producer.disconnect();
  }

  const runId = `t${Date.now().toString(36).slice(-7)}${id}`;
  const targets: KafkaTarget[] = [];
  try {
    targets.push(
      await startKafkaEngine({
        broker,
        bootstrap: fixture.brokers,
        workload,
        topics: engineTopics,
        runId,
        metrics: createEngineMetrics({ defaultMetrics: false }),
        store: (layout) => new MemoryStore(layout),
      }),
      await startStreamsPeer({
        bootstrap: fixture.brokers,
        workload: id as 'W1' | 'W4',
        store: 'memory',
        topics: peerTopics,
        applicationId: `test.${runId}.streams`,
      }),
    );
    await Promise.all(targets.map((t) => until('assigned', () => t.ready(), t, 60_000)));
    await Promise.all(targets.map((t) => Promise.race([t.start(), t.failed])));
    // Idle twice in a row, as the benchmark waits (the lags of several hops are read one by one).
    await Promise.all(
      targets.map((t) => {
        let streak = 0;
        return until(
          'consumed and committed',
          async () => {
            streak = (await t.idle()) ? streak + 1 : 0;
            return streak >= 2;
          },
          t,
          90_000,
          250,
        );
      }),
    );
  } finally {
    await Promise.allSettled(targets.map((t) => t.stop()));
  }

  const engine = await outputFinalState(broker, engineTopics.output, `test.${runId}.read-engine`);
  const peer = await outputFinalState(broker, peerTopics.output, `test.${runId}.read-peer`);
  const comparison = compareFinalStates(engine, peer, ['engine', 'Kafka Streams']);
  assert.ok(comparison.equal, formatComparison(comparison));
  assert.ok(comparison.keys >= 20, `only ${comparison.keys} head keys in the output`);
  process.stdout.write(
    `\n  ${id}: ${events.length} events, ${formatComparison(comparison)} (${((Date.now() - began) / 1000).toFixed(1)} s)\n`,
  );
}

when(runnable, 'needs a real Kafka, and java, javac and mvn for the peer')(
  'W1: the engine and the Kafka Streams peer end with the same aggregate per customer',
  async () => {
    const { deletes, moves } = changes([...WORKLOADS.W1.stream(RUNS.W1.events, RUNS.W1.seed, 0)]);
    assert.equal([...deletes].sort(), ['customers', 'items', 'orders'], 'deletes of every node');
    assert.ok(moves > 10, `children moving between parents: ${moves}`);
    await bothOn('W1');
  },
);

when(runnable, 'needs a real Kafka, and java, javac and mvn for the peer')(
  'W4: the engine and the Kafka Streams peer end with the same customers',
  async () => {
    await bothOn('W4');
  },
);

const message = (key: string, value: unknown): ConsumedMessage => ({
  topic: 'out',
  partition: 0,
  offset: 0,
  key: Buffer.from(key),
  value: value === null ? null : Buffer.from(JSON.stringify(value)),
});
const leaf = (value: object) => ({ value, dependencies: {} });
const customer = (orders: object[]) => ({
  op: 'r',
  before: null,
  after: { value: { id: 1 }, dependencies: { orders } },
});
const order = (id: number, items: number[]) => ({
  value: { id, customerId: 1 },
  dependencies: { items: items.map((i) => leaf({ id: i, orderId: id })) },
});

test('equality: last message per key, tombstone or d absent, children as multisets at every level', () => {
  const a = new FinalStateCollector();
  const b = new FinalStateCollector();
  for (const m of [
    message('{"id":1}', customer([order(10, [1, 2]), order(11, [])])),
    message('{"id":2}', customer([])),
    message('{"id":2}', { op: 'd', before: null, after: null }),
    message('{"id":2}', null),
  ])
    a.add(m);
  for (const m of [
    message('{"id":3}', customer([])),
    message('{"id":3}', null),
    message('{ "id": 1 }', customer([order(11, []), order(10, [2, 1])])),
  ])
    b.add(m);
  const same = compareFinalStates(a.state, b.state);
  assert.ok(same.equal, formatComparison(same));
  assert.is(formatComparison(same), 'equal: 1 keys');

  const c = new FinalStateCollector();
  c.add(message('{"id":1}', customer([order(11, []), order(10, [2, 3])])));
  c.add(message('{"id":4}', customer([])));
  const differ = compareFinalStates(a.state, c.state, ['engine', 'peer']);
  assert.not.ok(differ.equal);
  assert.is(differ.differing, 2);
  assert.match(
    differ.mismatches[0] as string,
    /^\{"id":1\}: after\.dependencies\.orders\[id 10\]\.dependencies\.items\[id 1\]/,
  );
  assert.match(differ.mismatches[1] as string, /^\{"id":4\}: only in peer/);
});

test.run();
