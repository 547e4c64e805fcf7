import * as assert from 'uvu/assert';
import {
  decodeInternalUpdates,
  encodeInternalUpdate,
  encodeInternalUpdates,
  type InternalUpdate,
  internalUpdateId,
  mergeInternalUpdates,
} from '../../../engine/internal-updates/message.ts';
import { test } from '../../support/suite.ts';

const update = (op?: InternalUpdate['op'], id = 1, head = 'customers'): InternalUpdate => ({
  head,
  ck: `{"id":${id}}`,
  key: { id },
  ...(op ? { op } : {}),
});

test('a many-key message round-trips its updates in order, goes to the given partition, keyed by its first id', () => {
  const updates = [update('c', 1), update(undefined, 2), update('d', 3, 'accounts'), update('u', 1)];
  const record = encodeInternalUpdates('internal', 2, updates);
  assert.is(record.topic, 'internal');
  assert.is(record.partition, 2);
  assert.is(record.key?.toString(), internalUpdateId(updates[0] as InternalUpdate));
  assert.equal(decodeInternalUpdates(record.value), updates);
  assert.throws(() => encodeInternalUpdates('internal', 0, []), /at least one update/);
});

test('a key is carried canonically: the decoded ck is the canonical JSON whatever the writer wrote', () => {
  const written = Buffer.from('{"updates":[{"head":"h","key":{"b":1,"a":{"d":2,"c":1}}}]}');
  assert.equal(decodeInternalUpdates(written), [
    { head: 'h', ck: '{"a":{"c":1,"d":2},"b":1}', key: { b: 1, a: { d: 2, c: 1 } } },
  ]);
});

test('single-key messages of earlier versions decode: the old wire format, written by hand', () => {
  assert.equal(decodeInternalUpdates(Buffer.from('{"head":"customers","key":{"id":1}}')), [update()]);
  assert.equal(decodeInternalUpdates(Buffer.from('{"head":"customers","key":{"id":1},"op":"u"}')), [
    update('u'),
  ]);
  // Full refresh still writes them, keyed by the update's id for the producer's partitioner.
  const record = encodeInternalUpdate('internal', update('r'));
  assert.is(record.partition, undefined);
  assert.is(record.key?.toString(), internalUpdateId(update()));
  assert.equal(decodeInternalUpdates(record.value), [update('r')]);
});

test('messages this engine did not write, or with any malformed update, decode to null', () => {
  for (const raw of [
    null,
    'x',
    '[]',
    '{"head":1,"key":{}}',
    '{"head":"h","key":[1]}',
    '{"head":"h","key":{},"op":"z"}',
    '{"updates":[]}',
    '{"updates":"x"}',
    '{"updates":[{"head":"h","key":{"id":1}},{"head":"h","key":{"id":2},"op":"z"}]}',
    '{"updates":[{"head":"h","key":{"id":1}},null]}',
  ]) {
    assert.is(decodeInternalUpdates(raw === null ? null : Buffer.from(raw)), null, String(raw));
  }
});

test('merge: the newest head op wins, but no-op changes and re-reads keep an earlier head op', () => {
  const merged = (older?: InternalUpdate['op'], newer?: InternalUpdate['op']) =>
    mergeInternalUpdates(update(older), update(newer)).op;
  assert.is(merged('c', undefined), 'c', 'a child change after a create');
  assert.is(merged('c', 'r'), 'c', 'a refresh after a create');
  assert.is(merged('u', 'd'), 'd');
  assert.is(merged('d', 'c'), 'c');
  assert.is(merged(undefined, 'r'), 'r');
  assert.is(merged(undefined, undefined), undefined);
});

test.run();
