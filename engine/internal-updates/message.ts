import type { ProducerRecord } from '../../operators/broker/types.ts';
import { isJsonObject, type JsonObject } from '../../operators/record/json.ts';
import type { ChangeOp } from '../change-event/parse.ts';
import { canonicalJson } from '../record/key.ts';

/**
 * "Recompute head `head`, key `key`": published on the internal-updates topic by the input
 * pipelines, consumed (compressed per key) by the recompute pipeline. Every update of one head
 * key goes to the partition its id (`internalUpdateId`) hashes to, so every recompute of it is
 * serialised there, which keeps the last output per key the newest (§6).
 */
export interface InternalUpdate {
  readonly head: string;
  readonly ck: string;
  readonly key: JsonObject;
  /** Set when the head record itself changed: its last op (kept by compression, §5 forwarding). */
  readonly op?: ChangeOp;
}

/** The canonical `[head, key]`: the compression key, and what picks the update's partition. */
export function internalUpdateId(update: Pick<InternalUpdate, 'head' | 'ck'>): string {
  return `[${quoted(update.head)},${update.ck}]`;
}

/** The head last quoted and its JSON: updates come in long runs of one head. */
let lastHead = '';
let lastQuoted = '""';

/** `JSON.stringify(head)`, which costs more than the rest of an id or an entry. */
function quoted(head: string): string {
  if (head !== lastHead) {
    lastHead = head;
    lastQuoted = JSON.stringify(head);
  }
  return lastQuoted;
}

/**
 * A message of one update, `{head, key, op?}`, keyed by its id so the producer's partitioner
 * routes it (full refresh). Also what versions before many-key messages wrote.
 */
export function encodeInternalUpdate(topic: string, update: InternalUpdate): ProducerRecord {
  return { topic, key: Buffer.from(internalUpdateId(update)), value: Buffer.from(entryJson(update)) };
}

/**
 * One message carrying many updates, `{"updates": [{head, key, op?}, ...]}` (amended §6): the
 * caller produces it to `partition`, the one every update's id hashes to. Its Kafka key is the
 * first update's id, so even a tool re-producing it by key would keep it on that partition.
 */
export function encodeInternalUpdates(
  topic: string,
  partition: number,
  updates: readonly InternalUpdate[],
): ProducerRecord {
  const first = updates[0];
  if (!first) throw new Error('an internal-updates message needs at least one update');
  return {
    topic,
    partition,
    key: Buffer.from(internalUpdateId(first)),
    value: Buffer.from(`{"updates":[${updates.map(entryJson).join(',')}]}`),
  };
}

/** `ck` is the key's canonical JSON, itself valid JSON: no second serialisation of the key. */
function entryJson(u: InternalUpdate): string {
  return `{"head":${quoted(u.head)},"key":${u.ck}${u.op ? `,"op":"${u.op}"` : ''}}`;
}

/**
 * The updates of a message: the many-key messages of `encodeInternalUpdates`, or the single-key
 * `{head, key, op?}` of earlier versions (an upgrade needs no drained topic). Null for a message
 * this engine did not write, or with any malformed update (the caller counts it as invalid).
 */
export function decodeInternalUpdates(value: Buffer | null): InternalUpdate[] | null {
  if (!value) return null;
  let body: unknown;
  try {
    body = JSON.parse(value.toString('utf8'));
  } catch {
    return null;
  }
  if (!isJsonObject(body)) return null;
  if (!Array.isArray(body.updates)) {
    const single = decodeUpdate(body);
    return single ? [single] : null;
  }
  const updates: InternalUpdate[] = [];
  for (const entry of body.updates) {
    const update = decodeUpdate(entry);
    if (!update) return null;
    updates.push(update);
  }
  return updates.length > 0 ? updates : null;
}

function decodeUpdate(entry: unknown): InternalUpdate | null {
  if (!isJsonObject(entry) || typeof entry.head !== 'string' || !isJsonObject(entry.key)) return null;
  const op = entry.op;
  if (op !== undefined && op !== 'c' && op !== 'r' && op !== 'u' && op !== 'd') return null;
  const ck = canonicalJson(entry.key);
  return op ? { head: entry.head, ck, key: entry.key, op } : { head: entry.head, ck, key: entry.key };
}

/**
 * Compression merge: the newest head op wins, except that neither a change below the head (no
 * op) nor a re-read (`r`, e.g. a refresh) hides an earlier `c`, `u` or `d` the output has not
 * yet forwarded.
 */
export function mergeInternalUpdates(older: InternalUpdate, newer: InternalUpdate): InternalUpdate {
  const keepOlder = older.op && (!newer.op || newer.op === 'r');
  return keepOlder ? { ...newer, op: older.op } : newer;
}
