import * as assert from 'uvu/assert';
import { decodeInternalUpdates, type InternalUpdate } from '../../../engine/internal-updates/message.ts';
import type { OutputMode } from '../../../engine/output/messages.ts';
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
import { suite } from '../../support/suite.ts';

/**
 * Issue 21: an instance is SIGKILLed in the middle of a recompute of head key {id:1}; the
 * survivor takes over its partitions, processes the head's delete and the re-delivered internal
 * updates. Whatever side effect the kill follows, the key's last output must be d + tombstone.
 * Scripted with direct calls on a shared in-process broker and store: no timing involved.
 */

const CUSTOMER = { id: 1 };

function world(mode: OutputMode) {
  const compiled = compileConfig(configFor(DIAMOND, (d) => (d.processor.mode = mode)));
  const topics = ['customers', 'orders', 'payments', 'refunds', 'internal', 'output'];
  const broker = new MemoryBroker({ topics: Object.fromEntries(topics.map((t) => [t, 1])) });
  const store = new MemoryStore(compiled.layout);
  const shared = { store, producer: broker.producer() };
  let offset = 0;
  const input = (topic: string, key: object, value: object): ConsumedMessage => ({
    topic,
    partition: 0,
    offset: offset++,
    key: Buffer.from(JSON.stringify(key)),
    value: Buffer.from(JSON.stringify(value)),
  });
  /** The internal updates from `from` on, as a re-delivery to a new owner reads them. */
  const internalFrom = (from: number): InternalUpdate[] =>
    broker
      .messages('internal')
      .flat()
      .slice(from)
      .flatMap((m) => decodeInternalUpdates(m.value) as InternalUpdate[]);
  const output = () => broker.messages('output').flat();
  /** The head's create (`c`) or delete (`d`) on the customers topic. */
  const customer = (op: 'c' | 'd'): ConsumedMessage =>
    input('customers', CUSTOMER, op === 'c' ? { op, after: CUSTOMER } : { op, before: CUSTOMER });
  return { compiled, store, shared, input, internalFrom, output, customer };
}

/** A new world in `mode` and its first instance, which has processed the head's create. */
async function withCustomerCreated(mode: OutputMode) {
  const w = world(mode);
  const first = crashableInstance(w.compiled, w.shared);
  await processInputBatch(first.ctx, 'customers', [w.customer('c')]);
  return { w, first };
}

/** One compression window over re-delivered updates, as the internal-updates pipeline merges them. */
function assertEndsDeleted(output: readonly ConsumedMessage[], context: string) {
  const [deleted, tombstone] = output.slice(-2);
  assert.ok(deleted?.value, `${context}: a d precedes the tombstone (output: ${describe(output)})`);
  assert.is(JSON.parse(deleted?.value?.toString() ?? '{}').op, 'd', `${context}: ${describe(output)}`);
  assert.is(tombstone?.value, null, `${context}: the tombstone is last (output: ${describe(output)})`);
}

const describe = (output: readonly ConsumedMessage[]) =>
  output.map((m) => (m.value ? JSON.parse(m.value.toString()).op : 'tombstone')).join(',');

type Killed = 'killed' | 'finished';
const race = (killed: Promise<void>, work: Promise<void>): Promise<Killed> =>
  Promise.race([killed.then(() => 'killed' as const), work.then(() => 'finished' as const)]);

const s = suite('SIGKILL between an emission and its remembering');

for (const mode of ['read-delete', 'operation-forwarding', 'key-only'] as const) {
  for (const redelivery of ['one window', 'one batch per update'] as const) {
    s(
      `${mode}, ${redelivery}: killed while emitting the head's aggregate, its later delete still ends on d + tombstone`,
      async () => {
        let finished = false;
        for (let killAt = 1; !finished; killAt++) {
          const { w, first } = await withCustomerCreated(mode);
          await processInputBatch(first.ctx, 'orders', [
            w.input('orders', { id: 10 }, { op: 'c', after: { id: 10, customerId: 1 } }),
          ]);
          // The dying instance owns the internal-updates partition and recomputes {id:1}.
          const dying = crashableInstance(w.compiled, w.shared, killAt);
          finished =
            (await race(dying.killed, recomputeHeads(dying.ctx, compressed(w.internalFrom(0))))) ===
            'finished';

          // The survivor owns the head's input partition and its delete; then the internal-updates
          // partition, whose updates the dead instance never committed, comes to it.
          const survivor = crashableInstance(w.compiled, w.shared);
          await processInputBatch(survivor.ctx, 'customers', [w.customer('d')]);
          const redelivered = w.internalFrom(finished ? 2 : 0);
          if (redelivery === 'one window') await recomputeHeads(survivor.ctx, compressed(redelivered));
          else for (const u of redelivered) await recomputeHeads(survivor.ctx, [u]);

          assertEndsDeleted(w.output(), `killed after side effect ${killAt}`);
          const remembered = await w.store.getEmitted('customers', [canonicalJson(CUSTOMER)]);
          assert.is(remembered.size, 0, 'nothing remembered for a deleted key');
        }
      },
    );

    s(
      `${mode}, ${redelivery}: killed while emitting the delete, the re-delivered delete ends on d + tombstone`,
      async () => {
        let finished = false;
        for (let killAt = 1; !finished; killAt++) {
          const { w, first } = await withCustomerCreated(mode);
          await recomputeHeads(first.ctx, w.internalFrom(0));
          await processInputBatch(first.ctx, 'customers', [w.customer('d')]);
          const dying = crashableInstance(w.compiled, w.shared, killAt);
          finished = (await race(dying.killed, recomputeHeads(dying.ctx, w.internalFrom(1)))) === 'finished';

          const survivor = crashableInstance(w.compiled, w.shared);
          const redelivered = finished ? [] : w.internalFrom(1);
          if (redelivery === 'one window') await recomputeHeads(survivor.ctx, compressed(redelivered));
          else for (const u of redelivered) await recomputeHeads(survivor.ctx, [u]);
          assertEndsDeleted(w.output(), `killed after side effect ${killAt}`);
        }
      },
    );
  }
}

s.run();
