import * as assert from 'uvu/assert';
import { decodeInternalUpdates, type InternalUpdate } from '../../../engine/internal-updates/message.ts';
import { canonicalJson } from '../../../engine/record/key.ts';
import { compileConfig } from '../../../engine/runtime/compile.ts';
import { processInputBatch } from '../../../engine/runtime/process-input.ts';
import { recomputeHeads } from '../../../engine/runtime/recompute.ts';
import { MemoryStore } from '../../../engine/store/index.ts';
import { MemoryBroker } from '../../../operators/broker/memory/index.ts';
import type { ConsumedMessage } from '../../../operators/broker/types.ts';
import { compressed } from '../../support/compress.ts';
import { configFor, DIAMOND } from '../../support/configs.ts';
import { crashableInstance } from '../../support/crashable.ts';
import { expectedAggregates } from '../../support/oracle.ts';
import { diamondMix, randomEvents, seeded } from '../../support/random-events.ts';
import { suite } from '../../support/suite.ts';

/**
 * Property (`engine.md` §6, §7): whatever the interleaving of input batches and recomputes, the
 * compression windows, duplicated internal updates, instances killed at any side effect of a
 * recompute (their updates re-delivered from the last commit), lost commits and replayed input,
 * the last message per head key equals the state of the store: the aggregate the oracle computes
 * from the final records, or d + tombstone for a head key that is gone.
 */

const SEEDS = Number(process.env.INTERLEAVING_SEEDS ?? 1000);
const FIRST_SEED = Number(process.env.INTERLEAVING_SEED ?? 1);

const MIX = diamondMix({ customers: 3, children: 5, customerDeleteRate: 0.3, childDeleteRate: 0.15 });

async function runSeed(seed: number, mode: 'read-delete' | 'operation-forwarding') {
  const rnd = seeded(seed);
  const chance = (p: number) => rnd() < p;
  const between = (low: number, high: number) => low + Math.floor(rnd() * (high - low + 1));
  const config = configFor(DIAMOND, (d) => (d.processor.mode = mode));
  const compiled = compileConfig(config);
  const topics = [...DIAMOND.nodes, 'internal', 'output'];
  const broker = new MemoryBroker({ topics: Object.fromEntries(topics.map((t) => [t, 1])) });
  const shared = { store: new MemoryStore(compiled.layout), producer: broker.producer() };
  const events = randomEvents(rnd, between(4, 16), MIX);
  const messages: ConsumedMessage[] = events.map((e, offset) => ({
    topic: e.topic,
    partition: 0,
    offset,
    key: Buffer.from(JSON.stringify(e.key)),
    value: Buffer.from(JSON.stringify(e.value)),
  }));
  const internal = () => broker.messages('internal').flat();

  let inputPosition = 0;
  let inputCommitted = 0;
  /** Input batches of one node each, in input order; a crash replays from the last commit. */
  const inputStep = async (end: number) => {
    const input = crashableInstance(compiled, shared);
    while (inputPosition < end) {
      const node = messages[inputPosition]?.topic as string;
      const batch: ConsumedMessage[] = [];
      while (inputPosition < end && messages[inputPosition]?.topic === node)
        batch.push(messages[inputPosition++] as ConsumedMessage);
      await processInputBatch(input.ctx, node, batch);
    }
  };

  let internalCommitted = 0;
  /** Recompute windows from the last commit, maybe with duplicates, maybe killed part-way. */
  const recomputeStep = async (killable: boolean) => {
    const end = killable ? between(internalCommitted, internal().length) : internal().length;
    const delivered = internal()
      .slice(internalCommitted, end)
      .flatMap((m) => decodeInternalUpdates(m.value) as InternalUpdate[]);
    const updates = delivered.flatMap((u) => (killable && chance(0.2) ? [u, u] : [u]));
    const killAt = killable && chance(0.5) ? between(1, 4) : Number.POSITIVE_INFINITY;
    const instance = crashableInstance(compiled, shared, killAt);
    const died = instance.killed.then(() => true);
    while (updates.length > 0) {
      const window = compressed(updates.splice(0, killable ? between(1, updates.length) : updates.length));
      if (await Promise.race([died, recomputeHeads(instance.ctx, window).then(() => false)])) return;
    }
    if (!killable || !chance(0.2)) internalCommitted = end; // else the commit was lost
  };

  while (inputPosition < messages.length) {
    const roll = rnd();
    if (roll < 0.5) {
      await inputStep(between(inputPosition, messages.length));
      if (chance(0.8)) inputCommitted = inputPosition;
      else inputPosition = inputCommitted; // crashed before its commit: replayed
    } else await recomputeStep(true);
  }
  await recomputeStep(false);

  const expected = expectedAggregates(config, events).get('customers') ?? new Map();
  const last = new Map<string, ConsumedMessage[]>();
  for (const m of broker.messages('output').flat()) {
    const ck = m.key?.toString() ?? '';
    last.set(ck, [...(last.get(ck) ?? []).slice(-1), m]);
  }
  const ops = (ck: string) =>
    (last.get(ck) ?? []).map((m) => (m.value ? JSON.parse(m.value.toString()).op : 'tombstone')).join(',');
  for (const [ck, aggregate] of expected) {
    const final = last.get(ck)?.at(-1);
    assert.ok(final?.value, `${ck} exists: its last message carries its aggregate (last: ${ops(ck)})`);
    const value = JSON.parse(final?.value?.toString() ?? 'null');
    assert.ok(value.op !== 'd', `${ck} exists but ends on d`);
    assert.equal(value.after, aggregate, `last aggregate of ${ck}`);
  }
  for (const ck of last.keys()) {
    if (expected.has(ck)) continue;
    assert.is(ops(ck), 'd,tombstone', `${ck} is deleted: it ends on d + tombstone`);
    const remembered = await shared.store.getEmitted('customers', [canonicalJson(JSON.parse(ck))]);
    assert.is(remembered.size, 0, `nothing remembered for deleted ${ck}`);
  }
}

const s = suite('random interleavings of internal updates');

for (const mode of ['read-delete', 'operation-forwarding'] as const) {
  s(
    `${mode}: ${SEEDS} seeds from ${FIRST_SEED}, the last message per head key is the store's state`,
    async () => {
      for (let seed = FIRST_SEED; seed < FIRST_SEED + SEEDS; seed++) {
        try {
          await runSeed(seed, mode);
        } catch (error) {
          console.error(
            `failing seed: ${seed} (${mode}); rerun with INTERLEAVING_SEED=${seed} INTERLEAVING_SEEDS=1`,
          );
          throw error;
        }
      }
    },
  );
}

s.run();
