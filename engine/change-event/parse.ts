import type { ConsumedMessage } from '../../operators/broker/types.ts';
import {
  isJsonObject,
  type JsonObject,
  MAX_JSON_DEPTH,
  pathDeeperThan,
} from '../../operators/record/json.ts';
import { canonicalJson } from '../record/key.ts';

export type ChangeOp = 'c' | 'r' | 'u' | 'd';

/** One input change event, parsed (`engine.md` §2). */
export interface ChangeEvent {
  readonly op: ChangeOp;
  readonly ck: string;
  readonly key: JsonObject;
  /** The new state for `c`/`r`/`u`; null for `d`. */
  readonly after: JsonObject | null;
  /** The source's previous state when it sent one (an object), else null. */
  readonly before: JsonObject | null;
}

/** Why a message was rejected; the label of `streamfold_invalid_messages_total{reason}`. */
export type InvalidReason =
  | 'invalid-key-json'
  | 'key-not-object'
  | 'invalid-value-json'
  | 'value-not-object'
  | 'unknown-op'
  | 'after-not-object';

export type ParseResult =
  | { readonly kind: 'change'; readonly event: ChangeEvent }
  | { readonly kind: 'tombstone' }
  | { readonly kind: 'invalid'; readonly reason: InvalidReason; readonly detail: string };

const OPS = new Set<string>(['c', 'r', 'u', 'd']);

function parseJson(bytes: Buffer): { ok: true; value: unknown } | { ok: false; error: string } {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
  const deep = pathDeeperThan(value, MAX_JSON_DEPTH);
  if (deep) return { ok: false, error: `nested deeper than ${MAX_JSON_DEPTH} levels` };
  return { ok: true, value };
}

/**
 * Parses a consumed message: a JSON-object key and a `{op, before, after}` value. A null or empty
 * value is a tombstone (ignored by the caller); anything else malformed is `invalid` with a
 * reason, never thrown, so one bad message cannot stall its partition.
 */
export function parseChangeEvent(message: Pick<ConsumedMessage, 'key' | 'value'>): ParseResult {
  if (message.value === null || message.value.length === 0) return { kind: 'tombstone' };
  const key = parseJson(message.key ?? Buffer.alloc(0));
  if (!key.ok)
    return { kind: 'invalid', reason: 'invalid-key-json', detail: `key is not JSON: ${key.error}` };
  if (!isJsonObject(key.value)) {
    return {
      kind: 'invalid',
      reason: 'key-not-object',
      detail: `key is ${describe(key.value)}, expected a JSON object`,
    };
  }
  const value = parseJson(message.value);
  if (!value.ok)
    return { kind: 'invalid', reason: 'invalid-value-json', detail: `value is not JSON: ${value.error}` };
  if (!isJsonObject(value.value)) {
    return {
      kind: 'invalid',
      reason: 'value-not-object',
      detail: `value is ${describe(value.value)}, expected {op, before, after}`,
    };
  }
  const op = value.value.op;
  if (typeof op !== 'string' || !OPS.has(op)) {
    return {
      kind: 'invalid',
      reason: 'unknown-op',
      detail: `op is ${JSON.stringify(op) ?? 'missing'}, expected one of c, r, u, d`,
    };
  }
  const after = value.value.after;
  if (op !== 'd' && !isJsonObject(after)) {
    return {
      kind: 'invalid',
      reason: 'after-not-object',
      detail: `op "${op}" needs an object "after", got ${describe(after)}`,
    };
  }
  return {
    kind: 'change',
    event: {
      op: op as ChangeOp,
      ck: canonicalJson(key.value),
      key: key.value,
      after: op === 'd' ? null : (after as JsonObject),
      before: isJsonObject(value.value.before) ? value.value.before : null,
    },
  };
}

function describe(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}
