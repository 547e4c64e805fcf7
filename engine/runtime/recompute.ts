import { setImmediate as nextTurn } from 'node:timers/promises';
import type { ProducerRecord } from '../../operators/broker/types.ts';
import { linkAggregates } from '../aggregate/compute.ts';
import { aggregateJson } from '../aggregate/serialize.ts';
import type { InternalUpdate } from '../internal-updates/message.ts';
import { planOutput } from '../output/messages.ts';
import type { EmittedWrite } from '../store/types.ts';
import { retryBatch } from './batch-retry.ts';
import type { RuntimeContext } from './context.ts';

/**
 * Recomputes the heads named by a compressed batch of internal updates and emits their output
 * (`engine.md` §5, §6). Per head: one `get`, one `getEmitted`, one lookup per edge, one bulk write
 * of the aggregates to emit, and one of the deleted keys to forget when there are any, whatever the
 * batch size. Resolves once all outputs are acknowledged.
 */
export async function recomputeHeads(ctx: RuntimeContext, updates: readonly InternalUpdate[]): Promise<void> {
  const end = ctx.metrics.batchSeconds.startTimer({ pipeline: 'internal-updates' });
  const byHead = new Map<string, InternalUpdate[]>();
  for (const u of updates) {
    // Appending in place: copying the list per update was quadratic in the batch size.
    const list = byHead.get(u.head);
    if (list) list.push(u);
    else byHead.set(u.head, [u]);
  }
  await Promise.all(
    [...byHead].map(async ([head, list]) => {
      await recomputeHead(ctx, head, list);
      ctx.metrics.recomputes.inc({ head }, list.length); // once per success, not per attempt
    }),
  );
  ctx.metrics.storeRoundTrips.set(ctx.store.counters.roundTrips);
  end();
}

/**
 * Head aggregates rendered between two turns of the event loop (~30 ms of W1 in memory). Measured
 * on W1 at 16k events/s, p99: 16 -> 414 ms, 64 -> 400, 256 -> 321-352, no yield -> 397. Smaller
 * chunks delay the keys already due; larger ones hold the input back.
 */
const RENDER_CHUNK = 256;

/**
 * The remembered aggregate (`__emitted`) must never fall behind the output, or a crash between
 * an emission and its remembering loses the only trace that the key was emitted: the head's
 * later delete then finds nothing to delete and emits nothing, leaving its `r` last (issue 21).
 * So what is about to be emitted is remembered before it is produced, and a forgotten key (a
 * delete) is forgotten only after its `d` and tombstone are acknowledged. A crash in between can
 * then only repeat an output, never lose a delete. Each step is retried on its own, so a retried
 * produce re-sends the same messages instead of re-planning them against the new memory.
 */
async function recomputeHead(
  ctx: RuntimeContext,
  head: string,
  updates: readonly InternalUpdate[],
): Promise<void> {
  if (!ctx.topology.heads.includes(head)) {
    ctx.logger.warn({ head }, 'internal update names an unknown head; skipped (was the graph changed?)');
    return;
  }
  const plan = await retryBatch(ctx.logger, 'internal-updates', () => planHead(ctx, head, updates));
  if (plan.remembered.length > 0) {
    await retryBatch(ctx.logger, 'internal-updates', () => ctx.store.writeEmitted(head, plan.remembered));
  }
  // Records of one key go out in order: a delete before its tombstone (same partition).
  const sent = ctx.metrics.acknowledgementSeconds.startTimer({ kind: 'output' });
  await retryBatch(ctx.logger, 'internal-updates', () =>
    Promise.all(plan.records.map((message) => ctx.producer.produce(message))),
  );
  if (plan.records.length > 0) sent();
  ctx.metrics.produced.inc({ kind: 'output' }, plan.records.length);
  if (plan.forgotten.length > 0) {
    await retryBatch(ctx.logger, 'internal-updates', () => ctx.store.writeEmitted(head, plan.forgotten));
  }
}

interface HeadPlan {
  readonly records: ProducerRecord[];
  /** Aggregates to remember before they are produced. */
  readonly remembered: EmittedWrite[];
  /** Keys to forget once their delete is acknowledged. */
  readonly forgotten: EmittedWrite[];
}

async function planHead(
  ctx: RuntimeContext,
  head: string,
  updates: readonly InternalUpdate[],
): Promise<HeadPlan> {
  const cks = updates.map((u) => u.ck);
  const [records, emitted] = await Promise.all([ctx.store.get(head, cks), ctx.store.getEmitted(head, cks)]);
  // key-only output carries no aggregate: only the head record's existence matters.
  const linked =
    ctx.mode === 'key-only'
      ? null
      : await linkAggregates(ctx.store, ctx.topology, head, [...records.values()]);

  const plan: HeadPlan = { records: [], remembered: [], forgotten: [] };
  for (const [i, update] of updates.entries()) {
    // Rendering is CPU work: let the input pipelines run in between (a long stall would make
    // their input arrive in a lump whose windows all close together: the next long stall).
    if (i > 0 && i % RENDER_CHUNK === 0) await nextTurn();
    const record = records.get(update.ck);
    const output = planOutput(ctx.mode, ctx.outputTopic, {
      head,
      ck: update.ck,
      aggregate: record === undefined ? null : linked ? aggregateJson(linked.tree(record)) : '',
      previous: emitted.get(update.ck),
      ...(update.op ? { headOp: update.op } : {}),
    });
    plan.records.push(...output.records);
    if (output.remember === null) plan.forgotten.push({ ck: update.ck, key: update.key, json: null });
    else if (output.remember !== undefined)
      plan.remembered.push({ ck: update.ck, key: update.key, json: output.remember });
  }
  return plan;
}
