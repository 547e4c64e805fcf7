import * as assert from 'uvu/assert';
import { type BenchEvent, WORKLOADS } from '../../bench/workloads/index.ts';
import { test } from '../support/suite.ts';

const decode = (e: BenchEvent) => ({
  topic: e.record.topic,
  key: JSON.parse((e.record.key as Buffer).toString()) as { id: number },
  value: JSON.parse((e.record.value as Buffer).toString()) as {
    op: string;
    after: Record<string, number> | null;
  },
  head: e.head,
});

test('the same seed gives the same stream, another seed another one', () => {
  const a = [...WORKLOADS.W1.stream(2000, 7, 0)].map((e) => e.record.value?.toString());
  const b = [...WORKLOADS.W1.stream(2000, 7, 0)].map((e) => e.record.value?.toString());
  const c = [...WORKLOADS.W1.stream(2000, 8, 0)].map((e) => e.record.value?.toString());
  assert.equal(a, b);
  assert.not.equal(a, c);
});

test('W1: 70/25/5 operation mix, 1:10:30 creates, about 10% of child updates move', () => {
  const events = [...WORKLOADS.W1.stream(50_000, 1, 0)].map(decode);
  const share = (f: (e: ReturnType<typeof decode>) => boolean) => events.filter(f).length / events.length;
  assert.ok(Math.abs(share((e) => e.value.op === 'c') - 0.7) < 0.02);
  assert.ok(Math.abs(share((e) => e.value.op === 'u') - 0.25) < 0.02);
  assert.ok(Math.abs(share((e) => e.value.op === 'd') - 0.05) < 0.01);
  const creates = (topic: string) => events.filter((e) => e.topic === topic && e.value.op === 'c').length;
  assert.ok(Math.abs(creates('orders') / creates('customers') - 10) < 1.5);
  assert.ok(Math.abs(creates('items') / creates('orders') - 3) < 0.4);

  // A move changes the foreign key of an order relative to its previous version.
  const parentOf = new Map<number, number>();
  let childUpdates = 0;
  let moves = 0;
  for (const e of events.filter((x) => x.topic === 'orders')) {
    if (e.value.op === 'u') {
      childUpdates++;
      if (parentOf.get(e.key.id) !== e.value.after?.customerId) moves++;
    }
    if (e.value.after) parentOf.set(e.key.id, e.value.after.customerId as number);
  }
  const moved = moves / childUpdates;
  assert.ok(moved > 0.05 && moved < 0.15, `moved share ${moved}`);
});

test('W1: deletes have a null after, children name live parents when created', () => {
  const events = [...WORKLOADS.W1.stream(20_000, 3, 0)].map(decode);
  const live = new Set<string>();
  for (const e of events) {
    if (e.value.op === 'd') {
      assert.is(e.value.after, null);
      assert.ok(live.has(`${e.topic}:${e.key.id}`), 'only live records are deleted');
      live.delete(`${e.topic}:${e.key.id}`);
      continue;
    }
    if (e.value.op === 'c' && e.topic === 'orders')
      assert.ok(
        live.has(`customers:${e.value.after?.customerId}`),
        'an order is created under a live customer',
      );
    if (e.value.op === 'c' && e.topic === 'items')
      assert.ok(live.has(`orders:${e.value.after?.orderId}`), 'an item is created under a live order');
    live.add(`${e.topic}:${e.key.id}`);
  }
});

test('W1: the head of an event is the customer its record hangs under', () => {
  const orderCustomer = new Map<number, number>();
  for (const e of [...WORKLOADS.W1.stream(10_000, 5, 0)].map(decode)) {
    if (e.topic === 'customers') assert.is(e.head, e.key.id);
    if (e.topic === 'orders' && e.value.after) {
      orderCustomer.set(e.key.id, e.value.after.customerId as number);
      if (e.head >= 0) assert.is(e.head, e.value.after.customerId);
    }
    if (e.topic === 'items' && e.value.after && e.head >= 0)
      assert.is(e.head, orderCustomer.get(e.value.after.orderId as number));
  }
});

test('W2: refunds have two parents, most of them under one customer', () => {
  const events = [...WORKLOADS.W2.stream(30_000, 2, 0)].map(decode);
  const customerOf = (topic: string) => {
    const map = new Map<number, number>();
    for (const e of events)
      if (e.topic === topic && e.value.after) map.set(e.key.id, e.value.after.customerId as number);
    return map;
  };
  const orders = customerOf('orders');
  const payments = customerOf('payments');
  const refunds = events.filter((e) => e.topic === 'refunds' && e.value.op === 'c');
  assert.ok(refunds.length > 1000);
  const linked = refunds.filter(
    (e) => orders.get(e.value.after?.orderId as number) === payments.get(e.value.after?.paymentId as number),
  );
  assert.ok(linked.length / refunds.length > 0.5, `${linked.length} of ${refunds.length}`);
});

test('W3: setup builds 1:10:30 per customer, then 80% of child updates hit 10% of heads', () => {
  const scale = 100;
  const setup = [...WORKLOADS.W3.setup(1, scale)].map(decode);
  assert.is(setup.length, scale * 41);
  const updates = [...WORKLOADS.W3.stream(20_000, 1, scale)].map(decode);
  assert.ok(updates.every((e) => e.value.op === 'u' && e.topic !== 'customers'));
  const hot = updates.filter((e) => e.head < scale / 10).length / updates.length;
  assert.ok(Math.abs(hot - 0.8) < 0.02, `hot share ${hot}`);
  assert.ok(updates.every((e) => e.head >= 0 && e.head < scale));
});

test('W4: head-only, ids and ops valid; zero events is an empty stream', () => {
  const events = [...WORKLOADS.W4.stream(5000, 9, 0)].map(decode);
  assert.ok(events.every((e) => e.topic === 'customers' && e.head === e.key.id));
  assert.equal([...WORKLOADS.W4.stream(0, 9, 0)], []);
});

test.run();
