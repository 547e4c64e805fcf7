import * as assert from 'uvu/assert';
import { MemoryBroker } from '../../../engine/broker/memory/index.ts';
import type { ConsumedMessage } from '../../../engine/broker/types.ts';
import { decodeInternalUpdate, type InternalUpdate } from '../../../engine/internal-updates/message.ts';
import type { OutputMode } from '../../../engine/output/messages.ts';
import { encodeKeyOnly } from '../../../engine/record/key.ts';
import { compileConfig } from '../../../engine/runtime/compile.ts';
import { processInputBatch } from '../../../engine/runtime/process-input.ts';
import { recomputeHeads } from '../../../engine/runtime/recompute.ts';
import { MemoryStore } from '../../../engine/store/index.ts';
import type { EmittedWrite, Store } from '../../../engine/store/types.ts';
import { configFor } from '../../support/configs.ts';
import { crashableInstance } from '../../support/crashable.ts';
import { suite } from '../../support/suite.ts';

/**
 * A recompute batch larger than one render chunk (256 heads) emits chunk by chunk: a key's output
 * does not wait for the whole batch. What must still hold: each chunk is remembered before it is
 * produced, and an instance killed anywhere in between leaves nothing that a re-delivery does not
 * repair (`engine.md` §7). Scripted on a shared in-process broker and store: no timing involved.
 */

const HEADS = 600;
const HEAD_ONLY = { nodes: ['customers'], edges: [] };

function world(mode: OutputMode) {
  const compiled = compileConfig(configFor(HEAD_ONLY, (d) => (d.processor.mode = mode)));
  const broker = new MemoryBroker({
    topics: Object.fromEntries(['customers', 'internal', 'output'].map((t) => [t, 1])),
  });
  const store = new MemoryStore(compiled.layout);
  let offset = 0;
  const input = (ids: readonly number[], op: 'c' | 'd'): ConsumedMessage[] =>
    ids.map((id) => ({
      topic: 'customers',
      partition: 0,
      offset: offset++,
      key: Buffer.from(JSON.stringify({ id })),
      value: Buffer.from(JSON.stringify(op === 'c' ? { op, after: { id } } : { op, before: { id } })),
    }));
  const internalFrom = (from: number): InternalUpdate[] =>
    broker
      .messages('internal')
      .flat()
      .slice(from)
      .map((m) => decodeInternalUpdate(m.value) as InternalUpdate);
  const output = () => broker.messages('output').flat();
  return { compiled, broker, store, input, internalFrom, output };
}

const ids = Array.from({ length: HEADS }, (_, i) => i + 1);
const s = suite('recompute batches emitted chunk by chunk');

s(
  'the first chunk is out before the last one is remembered, and every chunk is remembered before it is out',
  async () => {
    const w = world('read-delete');
    /** At each remembering: the keys it remembers and how many outputs were out. */
    const rememberings: Array<{ keys: number; outputs: number }> = [];
    const watched = new Proxy(w.store, {
      get: (target, property) => {
        if (property === 'writeEmitted') {
          return (head: string, writes: readonly EmittedWrite[]) => {
            rememberings.push({ keys: writes.length, outputs: w.output().length });
            return target.writeEmitted(head, writes);
          };
        }
        const value = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    }) as Store;
    const { ctx } = crashableInstance(w.compiled, { store: watched, producer: w.broker.producer() });
    await processInputBatch(ctx, 'customers', w.input(ids, 'c'));
    await recomputeHeads(ctx, w.internalFrom(0));

    assert.equal(
      rememberings.map((r) => r.keys),
      [256, 256, 88],
      'one remembering per chunk of 256 heads',
    );
    const last = rememberings.at(-1);
    assert.ok(
      (last?.outputs ?? 0) >= 256,
      `the first chunk was out before the last was remembered (${last?.outputs})`,
    );
    for (const [i, r] of rememberings.entries()) {
      assert.ok(
        r.outputs <= i * 256,
        `chunk ${i} is remembered before its outputs are out (${r.outputs} out)`,
      );
    }
    assert.is(w.output().length, HEADS);
  },
);

for (const mode of ['read-delete', 'operation-forwarding', 'key-only'] as const) {
  s(`${mode}: killed at any side effect of a chunked batch, a re-delivery ends every key right`, async () => {
    // Side effects of the batch: 3 rememberings and 600 produces; around each chunk's
    // remembering, and a sample in between. Deleted keys ending on a tombstone prove some were out.
    const killPoints = [
      1, 2, 3, 4, 5, 8, 128, 255, 256, 257, 258, 259, 260, 300, 513, 514, 515, 516, 600, 602,
    ];
    for (const killAt of killPoints) {
      const w = world(mode);
      const shared = { store: w.store, producer: w.broker.producer() };
      const first = crashableInstance(w.compiled, shared);
      await processInputBatch(first.ctx, 'customers', w.input(ids, 'c'));
      const dying = crashableInstance(w.compiled, shared, killAt);
      await Promise.race([dying.killed, recomputeHeads(dying.ctx, w.internalFrom(0))]);

      // The survivor deletes every third customer, then gets the uncommitted updates again.
      const survivor = crashableInstance(w.compiled, shared);
      const deleted = new Set(ids.filter((id) => id % 3 === 0));
      await processInputBatch(survivor.ctx, 'customers', w.input([...deleted], 'd'));
      await recomputeHeads(survivor.ctx, w.internalFrom(0));

      const byKey = new Map<string, ConsumedMessage[]>();
      for (const m of w.output()) {
        const key = m.key?.toString() ?? '';
        byKey.set(key, [...(byKey.get(key) ?? []), m]);
      }
      for (const id of ids) {
        const ck = `{"id":${id}}`;
        const messages = byKey.get(mode === 'key-only' ? encodeKeyOnly(ck) : ck) ?? [];
        const ops = messages.map((m) => (m.value ? JSON.parse(m.value.toString()).op : 'tombstone'));
        // A deleted key that was never out emits nothing; one that was ends on d + tombstone.
        if (deleted.has(id)) {
          if (ops.length > 0) assert.equal(ops.slice(-2), ['d', 'tombstone'], `killed at ${killAt}: ${ck}`);
        } else
          assert.ok(
            ops.length > 0 && !['d', 'tombstone'].includes(ops.at(-1)),
            `killed at ${killAt}: ${ck} ${ops}`,
          );
      }
      const tombstoned = [...byKey.values()].filter((messages) => messages.at(-1)?.value === null).length;
      if (killAt > 1)
        assert.ok(tombstoned > 0, `killed at ${killAt}: deleted keys that were out end on tombstones`);
      const remembered = await w.store.getEmitted(
        'customers',
        ids.map((id) => `{"id":${id}}`),
      );
      assert.is(remembered.size, HEADS - deleted.size, `killed at ${killAt}: only live keys are remembered`);
    }
  });
}

s.run();
