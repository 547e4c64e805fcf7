/**
 * Property: any key and value bytes are a change event, a tombstone, or invalid with a reason
 * and a detail; the parser never throws (one bad message must not stall its partition).
 */
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseChangeEvent } from '../../engine/change-event/parse.ts';
import { MAX_JSON_DEPTH } from '../../operators/record/json.ts';
import { test } from '../support/suite.ts';
import { anyText, checkProperty } from './property.ts';

const REASONS = new Set([
  'invalid-key-json',
  'key-not-object',
  'invalid-value-json',
  'value-not-object',
  'unknown-op',
  'after-not-object',
]);

function parsedOrReason(key: Buffer | null, value: Buffer | null): void {
  const result = parseChangeEvent({ key, value });
  if (result.kind === 'invalid') {
    assert.ok(REASONS.has(result.reason), result.reason);
    assert.ok(result.detail.length > 0);
  } else if (result.kind === 'change') {
    assert.equal(typeof result.event.ck, 'string');
  }
}

const bytes = fc.oneof(
  fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b)),
  anyText().map((t) => Buffer.from(t)),
  fc.jsonValue({ maxDepth: 4 }).map((v) => Buffer.from(JSON.stringify(v))),
);

/** Values shaped like change events, with every field possibly wrong. */
const eventLike = fc
  .record(
    {
      op: fc.oneof(fc.constantFrom('c', 'r', 'u', 'd', 'x'), fc.jsonValue({ maxDepth: 1 })),
      before: fc.jsonValue({ maxDepth: 3 }),
      after: fc.oneof(fc.object(), fc.jsonValue({ maxDepth: 3 })),
    },
    { requiredKeys: [] },
  )
  .map((v) => Buffer.from(JSON.stringify(v)));

test('any key and value bytes: a change, a tombstone, or invalid with a reason', () => {
  checkProperty('change-event: any bytes', 5000, fc.option(bytes), fc.option(bytes), parsedOrReason);
});

test('event-shaped values under object keys: a change, or invalid with a reason', () => {
  const key = fc.object().map((k) => Buffer.from(JSON.stringify(k)));
  checkProperty('change-event: event-shaped', 3000, key, eventLike, parsedOrReason);
});

// Found by fuzzing: a key nested 20 000 deep overflowed the stack in the canonical key (a
// RangeError out of the parser).
test('regression: a key or value nested past the limit is invalid, not a crash', () => {
  const deep = (n: number) => `{"a":${'['.repeat(n)}${']'.repeat(n)}}`;
  const op = Buffer.from('{"op":"c","after":{}}');
  const key = parseChangeEvent({ key: Buffer.from(deep(20_000)), value: op });
  assert.deepEqual(key.kind === 'invalid' && key.reason, 'invalid-key-json');
  const value = parseChangeEvent({
    key: Buffer.from('{"id":1}'),
    value: Buffer.from(`{"op":"c","after":${deep(20_000)}}`),
  });
  assert.deepEqual(value.kind === 'invalid' && value.reason, 'invalid-value-json');
  const atLimit = parseChangeEvent({ key: Buffer.from(deep(MAX_JSON_DEPTH - 2)), value: op });
  assert.equal(atLimit.kind, 'change');
});

test.run();
