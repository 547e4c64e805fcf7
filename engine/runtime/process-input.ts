import type { ConsumedMessage, ProducerRecord } from '../../operators/broker/types.ts';
import type { JsonObject } from '../../operators/record/json.ts';
import { findAffectedHeads, type RecordVersion } from '../aggregate/affected-heads.ts';
import { type ChangeEvent, parseChangeEvent } from '../change-event/parse.ts';
import type { InternalUpdate } from '../internal-updates/message.ts';
import { routeInternalUpdates } from '../internal-updates/route.ts';
import type { RecordWrite } from '../store/types.ts';
import { retryBatch } from './batch-retry.ts';
import type { RuntimeContext } from './context.ts';

/**
 * Handles one batch of input messages of one node (`engine.md` §2, §6): parse, one bulk write,
 * one upward walk, and the internal updates it implies, one message per target partition
 * (amended §6). Resolves once every write and every produced record is acknowledged, so the
 * caller may then commit the batch's offsets.
 */
export async function processInputBatch(
  ctx: RuntimeContext,
  nodeId: string,
  messages: readonly ConsumedMessage[],
): Promise<void> {
  await (await startInputBatch(ctx, nodeId, messages)).acknowledged;
}

/** A batch stored, whose internal updates the producer has; they are acknowledged later. */
export interface StartedInputBatch {
  /** Settles once the broker acknowledged every internal update of the batch. */
  readonly acknowledged: Promise<void>;
}

/**
 * The first part of {@link processInputBatch}: resolves once the batch is stored and its
 * internal updates are handed to the producer, in order, before their acknowledgement. The
 * input pipeline stores the next batch while this one's acknowledgements are on their way:
 * waiting for them in between left the pipeline idle for a broker round trip per batch.
 *
 * A failed delivery sends the same records again rather than storing the batch again: a later
 * batch may already have written newer versions of its keys, which a repeated write would undo.
 * The order of internal updates does not matter (each only says "recompute this head from the
 * store"), so a repeated delivery after a later batch's is right.
 */
export async function startInputBatch(
  ctx: RuntimeContext,
  nodeId: string,
  messages: readonly ConsumedMessage[],
): Promise<StartedInputBatch> {
  const updates = await storeInputBatch(ctx, nodeId, messages);
  const records = routeInternalUpdates(ctx.internalRoute, updates);
  const sent = ctx.metrics.acknowledgementSeconds.startTimer({ kind: 'internal-update' });
  const acknowledged = retryBatch(ctx.logger, nodeId, () =>
    Promise.all(records.map((record) => ctx.internalProducer.produce(record))),
  ).then(() => {
    if (records.length > 0) sent();
    ctx.metrics.produced.inc({ kind: 'internal-update' }, records.length);
  });
  // Awaited by the pipeline; a rejection before that must not count as unhandled.
  acknowledged.catch(() => undefined);
  return { acknowledged };
}

/**
 * The store side of an input batch: parse, dead letters, one bulk write, one upward walk.
 * Resolves with the heads it affects (the engine publishes them as internal updates; the
 * benchmark's naive peer recomputes them at once).
 */
export async function storeInputBatch(
  ctx: RuntimeContext,
  nodeId: string,
  messages: readonly ConsumedMessage[],
): Promise<InternalUpdate[]> {
  const end = ctx.metrics.batchSeconds.startTimer({ pipeline: nodeId });
  ctx.metrics.consumed.inc({ node: nodeId }, messages.length);
  const latest = new Map<string, ChangeEvent>();
  const befores = new Map<string, JsonObject[]>();
  const deadLetters: ProducerRecord[] = [];
  for (const message of messages) {
    const parsed = parseChangeEvent(message);
    if (parsed.kind === 'change') {
      // Within a batch only the final state of a key is stored; its old version comes from the store.
      const { ck, before } = parsed.event;
      latest.delete(ck);
      latest.set(ck, parsed.event);
      if (before) befores.set(ck, [...(befores.get(ck) ?? []), before]);
    } else if (parsed.kind === 'tombstone') {
      ctx.metrics.tombstones.inc({ node: nodeId });
    } else {
      ctx.metrics.invalid.inc({ node: nodeId, reason: parsed.reason });
      ctx.logger.warn(
        {
          node: nodeId,
          topic: message.topic,
          partition: message.partition,
          offset: message.offset,
          reason: parsed.reason,
        },
        `skipping invalid message: ${parsed.detail}`,
      );
      const topic = ctx.deadLetterTopics.get(nodeId);
      if (topic) deadLetters.push(deadLetter(topic, message, parsed.reason, parsed.detail));
    }
  }

  // Dead letters first, once (not with every retry of the store work); awaited before the commit.
  if (deadLetters.length > 0) {
    await retryBatch(ctx.logger, nodeId, () => Promise.all(deadLetters.map((r) => ctx.producer.produce(r))));
    ctx.metrics.produced.inc({ kind: 'dead-letter' }, deadLetters.length);
  }
  let updates: InternalUpdate[] = [];
  if (latest.size > 0) {
    const events = [...latest.values()];
    const isHead = ctx.topology.nodes.get(nodeId)?.in.length === 0;
    // Old versions are read once, before any attempt writes: a retry must still see them.
    const old = isHead
      ? new Map()
      : await retryBatch(ctx.logger, nodeId, () =>
          ctx.store.get(
            nodeId,
            events.map((e) => e.ck),
          ),
        );
    updates = await retryBatch(ctx.logger, nodeId, () =>
      applyChanges(ctx, nodeId, events, isHead, old, befores),
    );
  }
  ctx.metrics.storeRoundTrips.set(ctx.store.counters.roundTrips);
  end();
  return updates;
}

/**
 * Writes the batch's final states and finds the heads they affect, walking up from every version
 * a record had: the stored one, the new one, and each `before` the source sent. The `before`s
 * matter when this batch is redelivered after a crash that followed its write: the store then
 * already holds the new state, and without them a parent the record left would be missed.
 * Extra versions can only add candidate heads, never lose one.
 */
async function applyChanges(
  ctx: RuntimeContext,
  nodeId: string,
  events: readonly ChangeEvent[],
  isHead: boolean,
  old: ReadonlyMap<string, RecordVersion>,
  befores: ReadonlyMap<string, readonly JsonObject[]>,
): Promise<InternalUpdate[]> {
  const writes: RecordWrite[] = events.map((e) =>
    e.after
      ? { kind: 'upsert', ck: e.ck, key: e.key, value: e.after }
      : { kind: 'delete', ck: e.ck, key: e.key },
  );
  await ctx.store.write(nodeId, writes);
  if (isHead) return events.map((e) => ({ head: nodeId, ck: e.ck, key: e.key, op: e.op }));

  const versions: RecordVersion[] = [];
  for (const e of events) {
    const stored = old.get(e.ck);
    if (stored) versions.push(stored);
    for (const value of befores.get(e.ck) ?? []) versions.push({ ck: e.ck, key: e.key, value });
    if (e.after) versions.push({ ck: e.ck, key: e.key, value: e.after });
  }
  const affected = await findAffectedHeads(ctx.store, ctx.topology, nodeId, versions);
  const updates: InternalUpdate[] = [];
  for (const [head, keys] of affected) for (const [ck, key] of keys) updates.push({ head, ck, key });
  return updates;
}

function deadLetter(topic: string, message: ConsumedMessage, reason: string, detail: string): ProducerRecord {
  return {
    topic,
    key: message.key,
    value: message.value,
    headers: [
      { 'streamfold-error-reason': reason },
      { 'streamfold-error-detail': detail },
      { 'streamfold-source': `${message.topic}/${message.partition}/${message.offset}` },
    ],
  };
}
