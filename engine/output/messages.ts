import type { ProducerRecord } from '../broker/types.ts';
import type { ChangeOp } from '../change-event/parse.ts';
import type { JsonObject, JsonValue } from '../record/json.ts';
import { encodeKeyOnly } from '../record/key.ts';

export type OutputMode = 'operation-forwarding' | 'read-delete' | 'key-only';

/** Kafka header naming the head node of an output message (several heads share one topic). */
export const HEAD_HEADER = 'streamfold-head';

/** The state of one head key after a recompute. */
export interface HeadOutcome {
  readonly head: string;
  readonly ck: string;
  /** The current aggregate, or null when the head record does not exist (deleted). */
  readonly aggregate: JsonValue | null;
  /** The last aggregate emitted for this key, undefined when nothing was emitted yet. */
  readonly previous: JsonValue | undefined;
  /** The head record's own last operation when it changed, absent for a change below the head. */
  readonly headOp?: ChangeOp;
}

export interface OutputPlan {
  readonly records: ProducerRecord[];
  /** What to remember as the last emission: a value, null (forget), or undefined (unchanged). */
  readonly remember: JsonValue | null | undefined;
}

/**
 * Builds the output messages of one head key per `engine.md` §5. A delete is followed by a
 * tombstone so compacted topics drop the key; a head that never existed emits nothing.
 */
export function planOutput(mode: OutputMode, topic: string, outcome: HeadOutcome): OutputPlan {
  const key = Buffer.from(mode === 'key-only' ? encodeKeyOnly(outcome.ck) : outcome.ck, 'utf8');
  const headers = [{ [HEAD_HEADER]: outcome.head }];
  const message = (value: JsonObject): ProducerRecord => ({
    topic,
    key,
    value: Buffer.from(JSON.stringify(value)),
    headers,
  });

  if (outcome.aggregate === null) {
    if (outcome.previous === undefined) return { records: [], remember: undefined };
    const before = mode === 'key-only' ? null : outcome.previous;
    return {
      records: [message({ op: 'd', before, after: null }), { topic, key, value: null, headers }],
      remember: null,
    };
  }
  switch (mode) {
    case 'read-delete':
      return {
        records: [message({ op: 'r', before: null, after: outcome.aggregate })],
        remember: outcome.aggregate,
      };
    case 'key-only':
      // Only existence matters for a later delete, so the aggregate itself is not kept.
      return { records: [message({ op: 'r', before: null, after: null })], remember: true };
    case 'operation-forwarding': {
      const op = outcome.headOp && outcome.headOp !== 'd' ? outcome.headOp : 'u';
      const before = outcome.previous ?? null;
      return { records: [message({ op, before, after: outcome.aggregate })], remember: outcome.aggregate };
    }
  }
}
