import * as assert from 'uvu/assert';
import { HEAD_HEADER, type HeadOutcome, planOutput } from '../../../engine/output/messages.ts';
import { decodeKeyOnly } from '../../../engine/record/key.ts';
import { test } from '../../support/suite.ts';

const ck = '{"id":1}';
const agg = { value: { id: 1 }, dependencies: { orders: [] } };
const prev = { value: { id: 1, old: true }, dependencies: { orders: [] } };
const aggJson = JSON.stringify(agg);
const prevJson = JSON.stringify(prev);
const outcome = (o: Partial<HeadOutcome>): HeadOutcome => ({
  head: 'customers',
  ck,
  aggregate: aggJson,
  previous: undefined,
  ...o,
});
const values = (mode: Parameters<typeof planOutput>[0], o: Partial<HeadOutcome>) =>
  planOutput(mode, 'out', outcome(o)).records.map((r) => (r.value ? JSON.parse(r.value.toString()) : null));

test('read-delete: creates and updates become r without before', () => {
  for (const headOp of ['c', 'u', 'r', undefined] as const) {
    assert.equal(values('read-delete', { headOp, previous: prevJson }), [
      { op: 'r', before: null, after: agg },
    ]);
  }
});

test('delete emits d with the last aggregate, then a tombstone; remembers nothing', () => {
  for (const mode of ['read-delete', 'operation-forwarding'] as const) {
    const plan = planOutput(mode, 'out', outcome({ aggregate: null, previous: prevJson, headOp: 'd' }));
    assert.equal(
      plan.records.map((r) => (r.value ? JSON.parse(r.value.toString()) : null)),
      [{ op: 'd', before: prev, after: null }, null],
    );
    assert.is(plan.remember, null);
  }
});

test('a head that never was emitted and is gone emits nothing', () => {
  for (const mode of ['read-delete', 'operation-forwarding', 'key-only'] as const) {
    const plan = planOutput(mode, 'out', outcome({ aggregate: null, previous: undefined }));
    assert.equal(plan.records, []);
    assert.is(plan.remember, undefined);
  }
});

test('operation-forwarding: head ops forwarded, changes below are u, before exact', () => {
  assert.equal(values('operation-forwarding', { headOp: 'c' }), [{ op: 'c', before: null, after: agg }]);
  assert.equal(values('operation-forwarding', { headOp: 'r' }), [{ op: 'r', before: null, after: agg }]);
  assert.equal(values('operation-forwarding', { headOp: 'u', previous: prevJson }), [
    { op: 'u', before: prev, after: agg },
  ]);
  assert.equal(values('operation-forwarding', { previous: prevJson }), [
    { op: 'u', before: prev, after: agg },
  ]);
});

test('key-only: base64url key of the canonical JSON, no payload', () => {
  const plan = planOutput('key-only', 'out', outcome({ headOp: 'c' }));
  const key = plan.records[0]?.key?.toString() ?? '';
  assert.match(key, /^[A-Za-z0-9_-]+$/);
  assert.equal(decodeKeyOnly(key), { id: 1 });
  assert.equal(values('key-only', {}), [{ op: 'r', before: null, after: null }]);
  assert.equal(values('key-only', { aggregate: null, previous: 'true' }), [
    { op: 'd', before: null, after: null },
    null,
  ]);
});

test('values are exactly JSON.stringify of {op, before, after}; the remembered text is the emitted after', () => {
  const plan = planOutput('operation-forwarding', 'out', outcome({ headOp: 'u', previous: prevJson }));
  assert.is(plan.records[0]?.value?.toString(), JSON.stringify({ op: 'u', before: prev, after: agg }));
  assert.is(plan.remember, aggJson);
});

test('every record names its head and uses the canonical key', () => {
  const plan = planOutput('read-delete', 'out', outcome({ aggregate: null, previous: prevJson }));
  for (const r of plan.records) {
    assert.is(r.topic, 'out');
    assert.is(r.key?.toString(), ck);
    assert.equal(r.headers, [{ [HEAD_HEADER]: 'customers' }]);
  }
});

test.run();
