import * as assert from 'uvu/assert';
import {
  decodeInternalUpdate,
  encodeInternalUpdate,
  type InternalUpdate,
  internalUpdateId,
  mergeInternalUpdates,
} from '../../../engine/internal-updates/message.ts';
import { test } from '../../support/suite.ts';

const update = (op?: InternalUpdate['op']): InternalUpdate => ({
  head: 'customers',
  ck: '{"id":1}',
  key: { id: 1 },
  ...(op ? { op } : {}),
});

test('encode/decode round trip; the Kafka key is the head key, so one key stays on one partition', () => {
  for (const u of [update(), update('c'), update('d')]) {
    const record = encodeInternalUpdate('internal', u);
    assert.is(record.topic, 'internal');
    assert.is(record.key?.toString(), internalUpdateId(u));
    assert.equal(decodeInternalUpdate(record.value), u);
  }
  assert.is(
    internalUpdateId({ head: 'a', ck: '{"id":1}' }) === internalUpdateId({ head: 'b', ck: '{"id":1}' }),
    false,
  );
});

test('messages this engine did not write decode to null', () => {
  for (const raw of [
    null,
    'x',
    '[]',
    '{"head":1,"key":{}}',
    '{"head":"h","key":[1]}',
    '{"head":"h","key":{},"op":"z"}',
  ]) {
    assert.is(decodeInternalUpdate(raw === null ? null : Buffer.from(raw)), null, String(raw));
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
