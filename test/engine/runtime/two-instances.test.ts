/**
 * Many head keys per internal-updates message (amended `engine.md` §6), end to end on the
 * in-process broker: two engine instances sharing one broker (3 partitions per topic) and one
 * store, an upgrade that finds single-key messages of an earlier version in the topic, and
 * messages this engine did not write. Every head key must keep all its updates on one partition
 * and end on the result of one embedded engine fed the same events.
 */
import { pino } from 'pino';
import * as assert from 'uvu/assert';
import type { Config } from '../../../engine/config/index.ts';
import { decodeInternalUpdates, internalUpdateId } from '../../../engine/internal-updates/message.ts';
import { createEngineMetrics, type EngineMetrics } from '../../../engine/metrics/index.ts';
import { canonicalJson } from '../../../engine/record/key.ts';
import { compileConfig } from '../../../engine/runtime/compile.ts';
import { groupIdOf, INTERNAL_PART, type RunningEngine, startEngine } from '../../../engine/runtime/engine.ts';
import { MemoryStore, type Store } from '../../../engine/store/index.ts';
import { MemoryBroker } from '../../../operators/broker/memory/index.ts';
import type { ConsumedMessage } from '../../../operators/broker/types.ts';
import { configFor, DIAMOND } from '../../support/configs.ts';
import { counterValue, runEvents } from '../../support/embedded.ts';
import type { InputEvent } from '../../support/oracle.ts';
import { diamondEvents } from '../../support/random-events.ts';
import { test } from '../../support/suite.ts';

const PARTITIONS = 3;
const NO_PROPERTIES = {};

interface World {
  readonly config: Config;
  readonly broker: MemoryBroker;
  readonly store: Store;
  start(): Promise<{ engine: RunningEngine; metrics: EngineMetrics }>;
  feed(events: readonly InputEvent[]): Promise<void>;
  /** Last output value per head key (canonical JSON); null for a tombstone. */
  last(): Map<string, unknown>;
}

function world(): World {
  const config = configFor(DIAMOND);
  const compiled = compileConfig(config);
  const topics = [...DIAMOND.nodes, 'internal', 'output'];
  const broker = new MemoryBroker({ topics: Object.fromEntries(topics.map((t) => [t, PARTITIONS])) });
  const store = new MemoryStore(compiled.layout);
  const producer = broker.producer();
  return {
    config,
    broker,
    store,
    async start() {
      const metrics = createEngineMetrics({ defaultMetrics: false });
      const engine = await startEngine({
        compiled,
        broker,
        store,
        logger: pino({ level: 'silent' }),
        metrics,
        // Small batches: many of them, so both instances interleave their messages.
        maxBatchSize: 25,
        clients: {
          consumer: () => NO_PROPERTIES,
          producer: NO_PROPERTIES,
          internalConsumer: NO_PROPERTIES,
          internalProducer: NO_PROPERTIES,
        },
      });
      return { engine, metrics };
    },
    async feed(events) {
      for (const e of events) {
        await producer.produce({
          topic: e.topic,
          key: Buffer.from(JSON.stringify(e.key)),
          value: Buffer.from(JSON.stringify(e.value)),
        });
      }
    },
    last() {
      const last = new Map<string, unknown>();
      for (const m of broker.messages('output').flat()) {
        last.set(
          canonicalJson(JSON.parse(m.key?.toString() ?? 'null')),
          m.value && JSON.parse(m.value.toString()),
        );
      }
      return last;
    },
  };
}

/** A stalled partition never gets idle: the deadline turns that hang into a failure. */
async function untilIdle(engines: readonly RunningEngine[]): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (let quiet = 0; quiet < 3; ) {
    assert.ok(Date.now() < deadline, 'every instance gets idle: all consumed and committed');
    await new Promise((resolve) => setTimeout(resolve, 30));
    quiet = (await Promise.all(engines.map((e) => e.idle()))).every(Boolean) ? quiet + 1 : 0;
  }
}

/** What a head key ends on: its aggregate, or null when it is gone (d + tombstone, or never out). */
function finalState(last: ReadonlyMap<string, unknown>): Map<string, unknown> {
  return new Map(
    [...last].map(([ck, value]) => [ck, value === null ? null : (value as { after: unknown }).after]),
  );
}

function assertSameFinalState(actual: Map<string, unknown>, expected: Map<string, unknown>): void {
  for (const ck of new Set([...actual.keys(), ...expected.keys()])) {
    assert.equal(actual.get(ck) ?? null, expected.get(ck) ?? null, ck);
  }
}

const metric = (metrics: EngineMetrics, name: string, labels: Record<string, string>) =>
  counterValue(metrics, name, labels);

test('two instances, one topic: every head key keeps one partition, and both end on the embedded result', async () => {
  const events = diamondEvents(20, 600, 0.2);
  const w = world();
  const instances = [await w.start(), await w.start()];
  try {
    for (
      let tries = 0;
      !(await Promise.all(instances.map((i) => i.engine.ready()))).every(Boolean);
      tries++
    ) {
      assert.ok(tries < 200, 'both instances get partitions');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await w.feed(events);
    await untilIdle(instances.map((i) => i.engine));
  } finally {
    await Promise.all(instances.map((i) => i.engine.stop()));
  }

  for (const [n, { metrics }] of instances.entries()) {
    assert.ok(
      (await metric(metrics, 'streamfold_produced_messages_total', { kind: 'internal-update' })) > 0,
      `instance ${n} owned input partitions and published internal updates`,
    );
    assert.ok(
      (await metric(metrics, 'streamfold_head_recomputes_total', {})) > 0,
      `instance ${n} owned internal-updates partitions and recomputed heads`,
    );
  }
  const partitionsOf = new Map<string, Set<number>>();
  const messages = w.broker.messages('internal').flat();
  let updates = 0;
  for (const message of messages) {
    for (const u of decodeInternalUpdates(message.value) ?? []) {
      updates++;
      const id = internalUpdateId(u);
      partitionsOf.set(id, (partitionsOf.get(id) ?? new Set()).add(message.partition));
      assert.is(message.partition, w.broker.keyPartitioner()(Buffer.from(id), PARTITIONS), id);
    }
  }
  for (const [id, partitions] of partitionsOf) assert.is(partitions.size, 1, `${id} on one partition`);
  assert.ok(messages.length < updates, `${updates} updates in ${messages.length} messages`);

  const embedded = await runEvents(w.config, events, { partitions: PARTITIONS });
  assertSameFinalState(finalState(w.last()), finalState(embedded.last));
});

test('an upgrade: single-key messages of an earlier version, then many-key ones, end on the embedded result', async () => {
  const [earlier, later] = [diamondEvents(7, 150, 0.2), diamondEvents(8, 150, 0.2)];
  const w = world();
  // What the earlier version left behind: its input stored, one single-key message per head key
  // it found, keyed so the broker's partitioner placed it, and none of it recomputed yet.
  const byNode = new Map<string, Map<string, InputEvent>>();
  for (const e of earlier)
    byNode.set(e.topic, (byNode.get(e.topic) ?? new Map()).set(canonicalJson(e.key), e));
  for (const [node, latest] of byNode) {
    await w.store.write(
      node,
      [...latest].map(([ck, e]) =>
        e.value?.after
          ? { kind: 'upsert', ck, key: e.key, value: e.value.after }
          : { kind: 'delete', ck, key: e.key },
      ),
    );
  }
  const producer = w.broker.producer();
  const heads = [...(byNode.get('customers')?.values() ?? [])];
  for (const e of heads) {
    await producer.produce({
      topic: 'internal',
      key: Buffer.from(internalUpdateId({ head: 'customers', ck: canonicalJson(e.key) })),
      value: Buffer.from(JSON.stringify({ head: 'customers', key: e.key, op: e.value?.op })),
    });
  }
  const { engine, metrics } = await w.start();
  try {
    await w.feed(later);
    await untilIdle([engine]);
  } finally {
    await engine.stop();
  }
  const internal = w.broker.messages('internal').flat();
  const isMany = (m: ConsumedMessage) => 'updates' in JSON.parse(m.value?.toString() ?? '{}');
  assert.is(internal.filter((m) => !isMany(m)).length, heads.length, 'the earlier single-key messages');
  assert.ok(internal.some(isMany), 'and many-key ones from this version');
  assert.is(await metric(metrics, 'streamfold_invalid_messages_total', {}), 0, 'none of them invalid');

  const embedded = await runEvents(w.config, [...earlier, ...later], { partitions: PARTITIONS });
  assertSameFinalState(finalState(w.last()), finalState(embedded.last));
});

test('poison on the internal-updates topic: counted, logged, skipped whole; the partition does not stall', async () => {
  const w = world();
  const producer = w.broker.producer();
  const poison = [
    'not json',
    '{"updates":[{"head":"customers","key":{"id":1}},{"head":"customers"}]}',
    '{"updates":[]}',
    '{"head":"customers","key":[1]}',
  ];
  // All on partition 0, ahead of the valid update behind them.
  for (const raw of poison)
    await producer.produce({ topic: 'internal', partition: 0, key: null, value: Buffer.from(raw) });
  const { engine, metrics } = await w.start();
  try {
    await w.feed([
      { topic: 'customers', key: { id: 1 }, value: { op: 'c', before: null, after: { id: 1 } } },
    ]);
    await untilIdle([engine]);
  } finally {
    await engine.stop();
  }
  assert.is(
    await metric(metrics, 'streamfold_invalid_messages_total', {
      node: '__internal_updates',
      reason: 'not-an-internal-update',
    }),
    poison.length,
  );
  const out = w.last().get('{"id":1}') as { op: string; after: { value: unknown } } | undefined;
  assert.equal(out?.after.value, { id: 1 }, 'the valid update was recomputed');
  assert.is(
    w.broker.groupLag(groupIdOf(w.config.id, INTERNAL_PART, NO_PROPERTIES)),
    0,
    'the poison is committed past',
  );
});

test.run();
