import * as assert from 'uvu/assert';
import { WORKLOADS } from '../../../bench/workloads/index.ts';
import { MemoryBroker } from '../../../engine/broker/memory/index.ts';
import type { BrokerProducer, ConsumedMessage } from '../../../engine/broker/types.ts';
import {
  decodeInternalUpdate,
  type InternalUpdate,
  internalUpdateId,
  mergeInternalUpdates,
} from '../../../engine/internal-updates/message.ts';
import type { OutputMode } from '../../../engine/output/messages.ts';
import { type CompiledConfig, compileConfig } from '../../../engine/runtime/compile.ts';
import type { RuntimeContext } from '../../../engine/runtime/context.ts';
import { processInputBatch } from '../../../engine/runtime/process-input.ts';
import { recomputeHeads } from '../../../engine/runtime/recompute.ts';
import { MemoryStore } from '../../../engine/store/index.ts';
import type { Store } from '../../../engine/store/types.ts';
import { configFor, DIAMOND, type GraphSpec, SINGLE_VIEW } from '../../support/configs.ts';
import { crashableInstance } from '../../support/crashable.ts';
import { type EventMix, randomEvents, seeded } from '../../support/random-events.ts';
import { suite } from '../../support/suite.ts';

/**
 * Property (`engine.md` §6, amended): a recompute that reuses the rendered text of unchanged
 * subtrees emits exactly the bytes a full recompute from the store emits. Two engines get the
 * same input and the same schedule of input batches and recomputes: one renders incrementally
 * (the in-memory store's records are versions), the other is told the store's records are not
 * (so it renders every aggregate whole). Every output message must be equal, key, value and
 * headers, in order. The incremental one restarts at random points, its cache empty.
 */

const SEEDS = Number(process.env.INCREMENTAL_RENDER_SEEDS ?? 60);
const MODES: readonly OutputMode[] = ['read-delete', 'operation-forwarding', 'key-only'];

/** Four levels: subtrees inside reused subtrees (items under orders) must be checked too. */
const CHAIN: GraphSpec = {
  nodes: [...SINGLE_VIEW.nodes, 'parts'],
  edges: [
    ...SINGLE_VIEW.edges,
    {
      id: 'itemParts',
      parent: 'items',
      child: 'parts',
      filter: { $eq: [{ foreign: ['itemId'] }, { local: ['id'] }] },
    },
  ],
};

/** Small populations so that children move between parents, parents die and come back. */
const mixOf = (spec: GraphSpec): EventMix => ({
  nodes: spec.nodes,
  population: (node) => (node === 'customers' ? 3 : 6),
  deleteRate: (node) => (node === 'customers' ? 0.1 : 0.15),
  fields: {
    orders: { customerId: (draw) => draw.id(3), status: (draw) => draw.pick(['new', 'paid']) },
    payments: { customerId: (draw) => draw.id(3) },
    items: { orderId: (draw) => draw.id(6) },
    parts: { itemId: (draw) => draw.id(6) },
    refunds: { orderId: (draw) => draw.id(6), paymentId: (draw) => draw.id(6) },
  },
});

interface Twin {
  readonly broker: MemoryBroker;
  readonly store: Store;
  readonly producer: BrokerProducer;
  ctx: RuntimeContext;
  /** Internal updates consumed so far. */
  consumed: number;
}

function twin(compiled: CompiledConfig, topics: readonly string[], versions: boolean): Twin {
  const broker = new MemoryBroker({ topics: Object.fromEntries(topics.map((t) => [t, 1])) });
  const memory = new MemoryStore(compiled.layout);
  // The full-render engine: the same store, but its records are not to be taken for versions.
  const store = versions
    ? memory
    : new Proxy(memory, {
        get: (target, property) => {
          if (property === 'immutableRecords') return false;
          const value = Reflect.get(target, property, target);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
  const producer = broker.producer();
  return { broker, store, producer, ctx: crashableInstance(compiled, { store, producer }).ctx, consumed: 0 };
}

function compressed(updates: readonly InternalUpdate[]): InternalUpdate[] {
  const byId = new Map<string, InternalUpdate>();
  for (const u of updates) {
    const older = byId.get(internalUpdateId(u));
    byId.set(internalUpdateId(u), older ? mergeInternalUpdates(older, u) : u);
  }
  return [...byId.values()];
}

async function recompute(t: Twin): Promise<void> {
  const internal = t.broker.messages('internal').flat();
  const updates = internal.slice(t.consumed).map((m) => decodeInternalUpdate(m.value) as InternalUpdate);
  t.consumed = internal.length;
  if (updates.length > 0) await recomputeHeads(t.ctx, compressed(updates));
}

/** A message as text: its key and value bytes are UTF-8 JSON (or base64url keys), so equal text is equal bytes. */
const show = (m: ConsumedMessage | undefined) =>
  m && `${m.key?.toString()} ${m.value?.toString() ?? 'tombstone'} ${JSON.stringify(m.headers)}`;

/**
 * Feeds `messages` to both engines in the same random batches, recomputing at random points,
 * and compares their outputs message by message. Returns how many messages were compared.
 */
async function compareTwins(
  spec: GraphSpec,
  mode: OutputMode,
  messages: readonly ConsumedMessage[],
  rnd: () => number,
): Promise<number> {
  const compiled = compileConfig(configFor(spec, (d) => (d.processor.mode = mode)));
  const topics = [...spec.nodes, 'internal', 'output'];
  const incremental = twin(compiled, topics, true);
  const full = twin(compiled, topics, false);
  let position = 0;
  while (position < messages.length) {
    // A batch is a run of one node's messages, as one consumer reads them.
    const node = messages[position]?.topic as string;
    const end = Math.min(messages.length, position + 1 + Math.floor(rnd() * 12));
    const batch: ConsumedMessage[] = [];
    while (position < end && messages[position]?.topic === node)
      batch.push(messages[position++] as ConsumedMessage);
    for (const t of [incremental, full]) await processInputBatch(t.ctx, node, batch);
    if (rnd() < 0.4) for (const t of [incremental, full]) await recompute(t);
    if (rnd() < 0.05) incremental.ctx = crashableInstance(compiled, incremental).ctx; // restarted: cache empty
  }
  for (const t of [incremental, full]) await recompute(t);

  const got = incremental.broker.messages('output').flat();
  const expected = full.broker.messages('output').flat();
  for (let i = 0; i < Math.max(got.length, expected.length); i++) {
    assert.is(show(got[i]), show(expected[i]), `output message ${i}`);
  }
  return got.length;
}

function consumed(
  records: Iterable<{ topic: string; key: Buffer | null; value: Buffer | null }>,
): ConsumedMessage[] {
  return [...records].map((r, offset) => ({
    topic: r.topic,
    partition: 0,
    offset,
    key: r.key,
    value: r.value,
  }));
}

const s = suite('incremental render: byte-identical to a full recompute');

for (const mode of MODES) {
  for (const [name, spec] of [
    ['single view', SINGLE_VIEW],
    ['diamond', DIAMOND],
    ['four levels', CHAIN],
  ] as const) {
    s(`${mode}, ${name}: ${SEEDS} seeds of random events (moves, deletes, restarts)`, async () => {
      let compared = 0;
      for (let seed = 1; seed <= SEEDS; seed++) {
        const rnd = seeded(seed);
        const events = randomEvents(rnd, 40 + Math.floor(rnd() * 80), mixOf(spec));
        const messages = consumed(
          events.map((e) => ({
            topic: e.topic,
            key: Buffer.from(JSON.stringify(e.key)),
            value: e.value ? Buffer.from(JSON.stringify(e.value)) : null,
          })),
        );
        try {
          compared += await compareTwins(spec, mode, messages, rnd);
        } catch (error) {
          console.error(
            `failing seed: ${seed} (${mode}, ${name}); seeds 1 to N run with INCREMENTAL_RENDER_SEEDS=N`,
          );
          throw error;
        }
      }
      assert.ok(compared > SEEDS, `outputs were compared (${compared})`);
    });
  }

  for (const id of ['W1', 'W2', 'W3'] as const) {
    s(`${mode}, bench workload ${id}: 2,000 seeded events`, async () => {
      const workload = WORKLOADS[id];
      const setup = [...workload.setup(7, 20)].map((e) => e.record);
      const stream = [...workload.stream(2000, 7, 20)].map((e) => e.record);
      const compared = await compareTwins(workload.graph, mode, consumed([...setup, ...stream]), seeded(7));
      assert.ok(compared > 100, `outputs were compared (${compared})`);
    });
  }
}

s.run();
