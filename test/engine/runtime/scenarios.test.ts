import * as assert from 'uvu/assert';
import type { Config } from '../../../engine/config/index.ts';
import type { GenericFilter } from '../../../engine/filter/ast.ts';
import { canonicalJson, decodeKeyOnly } from '../../../engine/record/key.ts';
import { configFor, DIAMOND, type GraphSpec, SINGLE_VIEW } from '../../support/configs.ts';
import {
  counterValue,
  create,
  type EmbeddedRun,
  remove,
  runEvents,
  runPhases,
  update,
} from '../../support/embedded.ts';
import { expectedAggregates, type InputEvent } from '../../support/oracle.ts';
import { type EventMix, randomEvents, seeded } from '../../support/random-events.ts';
import { suite } from '../../support/suite.ts';

/** Every head key ends on the oracle's aggregate; every deleted head ends on d + tombstone. */
function assertConverged(run: EmbeddedRun, config: Config, events: readonly InputEvent[], head: string) {
  const expected = expectedAggregates(config, events).get(head) ?? new Map();
  for (const [ck, aggregate] of expected) {
    const last = run.last.get(ck);
    assert.ok(last, `no output for ${ck}`);
    assert.equal(last?.after, aggregate, `final aggregate of ${ck}`);
    assert.ok(last?.op !== 'd', `${ck} ends deleted`);
  }
  for (const [key, value] of run.last) {
    if (expected.has(key)) continue;
    assert.is(value, null, `${key} no longer exists: its last message must be a tombstone`);
  }
}

const MODES = ['read-delete', 'operation-forwarding'] as const;

for (const mode of MODES) {
  const s = suite(`single view, ${mode}`);
  const withMode = configFor(SINGLE_VIEW, (d) => {
    d.processor.mode = mode;
  });

  s(
    'creates, updates and deletes at every level; a child moves; children arrive before parents',
    async () => {
      const events: InputEvent[] = [
        create('items', { id: 100, orderId: 10, sku: 'a' }), // before its order and customer
        create('orders', { id: 10, customerId: 1 }),
        create('customers', { id: 1, name: 'Ada' }),
        create('customers', { id: 2, name: 'Grace' }),
        create('orders', { id: 20, customerId: 2 }),
        create('items', { id: 200, orderId: 20, sku: 'b' }),
        update('customers', { id: 1, name: 'Ada L.' }),
        update('items', { id: 100, orderId: 10, sku: 'a2' }),
        update('orders', { id: 20, customerId: 1 }), // moves to customer 1 with its item
        remove('items', { id: 100 }),
        create('customers', { id: 3, name: 'Alan' }),
        remove('customers', { id: 2 }),
      ];
      const run = await runEvents(withMode, events);
      assertConverged(run, withMode, events, 'customers');
      const one = run.last.get('{"id":1}')?.after as {
        dependencies: { orders: { value: { id: number } }[] };
      };
      assert.equal(
        one.dependencies.orders.map((o) => o.value.id),
        [10, 20],
      );
    },
  );

  s('a head delete emits d with the last aggregate, then a tombstone', async () => {
    const phases = [
      [create('customers', { id: 7 }), create('orders', { id: 70, customerId: 7 })],
      [remove('customers', { id: 7 })],
    ];
    const run = await runPhases(withMode, phases);
    const forKey = run.outputs.filter((o) => JSON.stringify(o.key) === '{"id":7}');
    const [emitted, deleted, tombstone] = forKey.slice(-3).map((o) => o.value);
    assert.is(deleted?.op, 'd');
    assert.is(deleted?.after, null);
    assert.equal(deleted?.before, emitted?.after, 'before is the last aggregate emitted');
    assert.is(tombstone, null, 'tombstone last');
  });

  s('a head created and deleted before it was ever emitted emits nothing', async () => {
    const run = await runEvents(withMode, [create('customers', { id: 8 }), remove('customers', { id: 8 })], {
      partitions: 1,
    });
    assert.equal(run.outputs, []);
  });

  s.run();
}

const random = suite('random workloads converge to the oracle');

const mixOf = (spec: GraphSpec): EventMix => ({
  nodes: spec.nodes,
  population: (node) => (node === 'customers' ? 6 : 12),
  deleteRate: () => 0.15,
  fields: {
    customers: { tier: (draw) => draw.pick(['gold', 'silver']) },
    orders: { customerId: (draw) => draw.id(6) },
    payments: { customerId: (draw) => draw.id(6) },
    items: { orderId: (draw) => draw.id(12) },
    refunds: { orderId: (draw) => draw.id(12), paymentId: (draw) => draw.id(12) },
  },
});

for (const [name, spec] of [
  ['single view', SINGLE_VIEW],
  ['diamond', DIAMOND],
] as const) {
  for (const seed of [1, 2, 3]) {
    random(`${name}, seed ${seed}, 400 events, 3 partitions`, async () => {
      const config = configFor(spec);
      const events = randomEvents(seeded(seed), 400, mixOf(spec));
      const run = await runEvents(config, events, { partitions: 3 });
      assertConverged(run, config, events, 'customers');
    });
  }
}
random.run();

const edges = suite('cartesian and false edges');
const tagged = (filter: GenericFilter): GraphSpec => ({
  nodes: ['stores', 'tags'],
  edges: [{ id: 'storeTags', parent: 'stores', child: 'tags', filter }],
});

edges('true links every tag to every store', async () => {
  const config = configFor(tagged(true));
  const events = [
    create('stores', { id: 1 }),
    create('stores', { id: 2 }),
    create('tags', { id: 't1' }),
    create('tags', { id: 't2' }),
  ];
  const run = await runEvents(config, events);
  assertConverged(run, config, events, 'stores');
  const store = run.last.get('{"id":2}')?.after as { dependencies: { tags: unknown[] } } | undefined;
  assert.is(store?.dependencies.tags.length, 2);
});

edges('false links nothing, and a tag change emits nothing', async () => {
  const config = configFor(tagged(false));
  const events = [create('stores', { id: 1 }), create('tags', { id: 't1' })];
  const run = await runEvents(config, events);
  assertConverged(run, config, events, 'stores');
  assert.is(run.outputs.length, 1, 'only the store create');
});
edges.run();

const compression = suite('compression');

compression('many child updates inside the window give few recomputes', async () => {
  const config = configFor(SINGLE_VIEW, (d) => {
    d.processor.internalUpdates.config.compressionWindowMs = 500;
  });
  const events: InputEvent[] = [create('customers', { id: 1 }), create('orders', { id: 10, customerId: 1 })];
  for (let i = 0; i < 300; i++) events.push(update('items', { id: 100 + (i % 3), orderId: 10, qty: i }));
  const run = await runEvents(config, events, { partitions: 1 });
  assertConverged(run, config, events, 'customers');
  const consumed = await counterValue(run.metrics, 'streamfold_internal_updates_consumed_total');
  const recomputes = await counterValue(run.metrics, 'streamfold_head_recomputes_total');
  assert.ok(consumed >= 2, `internal updates consumed: ${consumed}`);
  assert.ok(recomputes * 5 <= 302, `recomputes ${recomputes} should be at least 5x fewer than 302 changes`);
  const ratio = await counterValue(run.metrics, 'streamfold_internal_update_compression_ratio');
  assert.ok(ratio >= 1, `compression ratio ${ratio}`);
});
compression.run();

const keyOnly = suite('key-only mode');
keyOnly('keys are base64url canonical JSON; no payload; deletes end with a tombstone', async () => {
  const config = configFor(SINGLE_VIEW, (d) => {
    d.processor.mode = 'key-only';
  });
  const phases = [
    [create('customers', { id: 1 }), create('customers', { b: 2, a: 1, id: 2 }, { b: 2, a: 1 })],
    [remove('customers', { id: 1 })],
  ];
  const run = await runPhases(config, phases, { partitions: 1 });
  for (const output of run.outputs) {
    assert.type(output.key, 'string');
    assert.ok(decodeKeyOnly(output.key as string), 'decodes to an object');
    if (output.value) assert.equal([output.value.before, output.value.after], [null, null]);
  }
  assert.equal(run.last.get(Buffer.from('{"a":1,"b":2}').toString('base64url'))?.op, 'r');
  assert.is(run.last.get(Buffer.from(canonicalJson({ id: 1 })).toString('base64url')), null);
});
keyOnly.run();

const forwarding = suite('operation-forwarding');
forwarding('before is exactly the previously emitted after, per key', async () => {
  const config = configFor(SINGLE_VIEW, (d) => {
    d.processor.mode = 'operation-forwarding';
  });
  const events = randomEvents(seeded(9), 300, mixOf(SINGLE_VIEW));
  const run = await runEvents(config, events);
  const previous = new Map<string, unknown>();
  for (const o of run.outputs) {
    const key = JSON.stringify(o.key);
    if (o.value === null) {
      previous.delete(key);
      continue;
    }
    assert.equal(o.value.before, previous.get(key) ?? null, `before of ${key}`);
    if (o.value.op === 'd') previous.delete(key);
    else previous.set(key, o.value.after);
  }
  assertConverged(run, config, events, 'customers');
});
forwarding.run();
