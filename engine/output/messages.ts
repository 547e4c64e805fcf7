import type { MessageHeaders, ProducerRecord } from '../../operators/broker/types.ts';
import type { ChangeOp } from '../change-event/parse.ts';
import { encodeKeyOnly } from '../record/key.ts';

export type OutputMode = 'operation-forwarding' | 'read-delete' | 'key-only';

/** Kafka header naming the head node of an output message (several heads share one topic). */
export const HEAD_HEADER = 'streamfold-head';

/**
 * The state of one head key after a recompute. Aggregates are JSON text: the output carries them
 * verbatim, and the text remembered as emitted becomes the next `before` byte for byte.
 */
export interface HeadOutcome {
  readonly head: string;
  readonly ck: string;
  /** The current aggregate's JSON, or null when the head record does not exist (deleted). */
  readonly aggregate: string | null;
  /** The JSON of the last aggregate emitted for this key, undefined when nothing was emitted yet. */
  readonly previous: string | undefined;
  /** The head record's own last operation when it changed, absent for a change below the head. */
  readonly headOp?: ChangeOp;
}

export interface OutputPlan {
  readonly records: ProducerRecord[];
  /** What to remember as the last emission: JSON text, null (forget), or undefined (unchanged). */
  readonly remember: string | null | undefined;
}

/** key-only mode remembers only that something was emitted (a later delete must say so). */
const EMITTED = 'true';

/**
 * Builds the output messages of one head key per `engine.md` §5. A delete is followed by a
 * tombstone so compacted topics drop the key; a head that never existed emits nothing.
 * Values are assembled as text around the aggregates' JSON, which is what `JSON.stringify` of
 * `{op, before, after}` would give, without serializing the aggregates again.
 */
export function planOutput(mode: OutputMode, topic: string, outcome: HeadOutcome): OutputPlan {
  const key = Buffer.from(mode === 'key-only' ? encodeKeyOnly(outcome.ck) : outcome.ck, 'utf8');
  const headers = headersOf(outcome.head);
  if (outcome.aggregate === null) {
    if (outcome.previous === undefined) return { records: [], remember: undefined };
    const before = mode === 'key-only' ? null : outcome.previous;
    return {
      records: [message(topic, key, headers, 'd', before, null), { topic, key, value: null, headers }],
      remember: null,
    };
  }
  switch (mode) {
    case 'read-delete':
      return {
        records: [message(topic, key, headers, 'r', null, outcome.aggregate)],
        remember: outcome.aggregate,
      };
    case 'key-only':
      return { records: [message(topic, key, headers, 'r', null, null)], remember: EMITTED };
    case 'operation-forwarding': {
      const op = outcome.headOp && outcome.headOp !== 'd' ? outcome.headOp : 'u';
      return {
        records: [message(topic, key, headers, op, outcome.previous ?? null, outcome.aggregate)],
        remember: outcome.aggregate,
      };
    }
  }
}

function message(
  topic: string,
  key: Buffer,
  headers: MessageHeaders,
  op: ChangeOp,
  before: string | null,
  after: string | null,
): ProducerRecord {
  return {
    topic,
    key,
    value: Buffer.from(`{"op":"${op}","before":${before ?? 'null'},"after":${after ?? 'null'}}`, 'utf8'),
    headers,
  };
}

const headersByHead = new Map<string, MessageHeaders>();

/** The same headers for every output of a head: one array per head node, not per message. */
function headersOf(head: string): MessageHeaders {
  let headers = headersByHead.get(head);
  if (headers === undefined) {
    headers = Object.freeze([Object.freeze({ [HEAD_HEADER]: head })]);
    headersByHead.set(head, headers);
  }
  return headers;
}
