import type { ProducerRecord } from '../broker/types.ts';
import type { ChangeOp } from '../change-event/parse.ts';
import { isJsonObject, type JsonObject } from '../record/json.ts';
import { canonicalJson } from '../record/key.ts';

/**
 * "Recompute head `head`, key `key`": published on the internal-updates topic by the input
 * pipelines, consumed (compressed per key) by the recompute pipeline. Its Kafka key is the
 * canonical `[head, key]`, so one head key always lands on one partition and every recompute
 * of it is serialised there, which keeps the last output per key the newest (§6).
 */
export interface InternalUpdate {
  readonly head: string;
  readonly ck: string;
  readonly key: JsonObject;
  /** Set when the head record itself changed: its last op (kept by compression, §5 forwarding). */
  readonly op?: ChangeOp;
}

export function internalUpdateId(update: Pick<InternalUpdate, 'head' | 'ck'>): string {
  return `[${JSON.stringify(update.head)},${update.ck}]`;
}

export function encodeInternalUpdate(topic: string, update: InternalUpdate): ProducerRecord {
  const body = update.op
    ? { head: update.head, key: update.key, op: update.op }
    : { head: update.head, key: update.key };
  return { topic, key: Buffer.from(internalUpdateId(update)), value: Buffer.from(JSON.stringify(body)) };
}

/** Returns null for a message this engine did not write (the caller counts it as invalid). */
export function decodeInternalUpdate(value: Buffer | null): InternalUpdate | null {
  if (!value) return null;
  let body: unknown;
  try {
    body = JSON.parse(value.toString('utf8'));
  } catch {
    return null;
  }
  if (!isJsonObject(body) || typeof body.head !== 'string' || !isJsonObject(body.key)) return null;
  const op = body.op;
  if (op !== undefined && op !== 'c' && op !== 'r' && op !== 'u' && op !== 'd') return null;
  return { head: body.head, ck: canonicalJson(body.key), key: body.key, ...(op ? { op } : {}) };
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
