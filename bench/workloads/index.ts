import type { JsonObject } from '../../operators/record/json.ts';
// The graphs the tests use too: one definition of each topology.
import { DIAMOND, type GraphSpec, SINGLE_VIEW } from '../../test/support/configs.ts';
import { type BenchEvent, type NodeModel, StreamModel } from './model.ts';
import { type Random, randomInt, seededRandom } from './random.ts';

export type { BenchEvent } from './model.ts';

export type { GraphSpec };

export type WorkloadId = 'W1' | 'W2' | 'W3' | 'W4';

export interface Workload {
  readonly id: WorkloadId;
  readonly title: string;
  readonly graph: GraphSpec;
  /** Unmeasured events that build the state the measured stream works on (W3's population). */
  setup(seed: number, scale: number): Iterable<BenchEvent>;
  /** The measured stream: `count` events, the same for the same seed. */
  stream(count: number, seed: number, scale: number): Iterable<BenchEvent>;
}

const HEAD_ONLY: GraphSpec = { nodes: ['customers'], edges: [] };

const TIERS = ['bronze', 'silver', 'gold'];
const STATUSES = ['new', 'paid', 'shipped', 'delivered'];

const customer: NodeModel = {
  name: 'customers',
  createWeight: 1,
  foreignKeys: [],
  value: (id, version) => ({
    id,
    name: `customer ${id}`,
    email: `c${id}@example.com`,
    tier: TIERS[version % 3] as string,
    version,
  }),
};
const order = (weight: number): NodeModel => ({
  name: 'orders',
  createWeight: weight,
  foreignKeys: [{ field: 'customerId', parent: 'customers' }],
  value: (id, version, fk) => ({
    id,
    customerId: fk.customerId as number,
    status: STATUSES[version % 4] as string,
    total: ((id * 37) % 1000) + version,
  }),
});
const item: NodeModel = {
  name: 'items',
  createWeight: 30,
  foreignKeys: [{ field: 'orderId', parent: 'orders' }],
  value: (id, version, fk) => ({
    id,
    orderId: fk.orderId as number,
    sku: `sku-${id % 500}`,
    quantity: 1 + ((id + version) % 5),
  }),
};
/**
 * Payments and refunds of one W2 stream: a refund names an order and the latest live payment
 * of that order's customer when there is one (so it links on both in-edges), else any payment.
 */
function paymentsAndRefunds(): [NodeModel, NodeModel] {
  const latestPayment = new Map<number, number>();
  const payment: NodeModel = {
    name: 'payments',
    createWeight: 5,
    foreignKeys: [{ field: 'customerId', parent: 'customers' }],
    value: (id, version, fk) => ({ id, customerId: fk.customerId as number, amount: (id % 300) + version }),
    created: (id, [customerId]) => latestPayment.set(customerId as number, id),
  };
  const refund: NodeModel = {
    name: 'refunds',
    createWeight: 2,
    foreignKeys: [
      { field: 'orderId', parent: 'orders' },
      {
        field: 'paymentId',
        parent: 'payments',
        choose: (random, model, [orderId]) => {
          const payments = model.population('payments');
          const candidate = latestPayment.get(model.population('orders').foreign(0, orderId as number)) ?? -1;
          return payments.isLive(candidate) ? candidate : payments.pick(random);
        },
      },
    ],
    value: (id, version, fk) => ({
      id,
      orderId: fk.orderId as number,
      paymentId: fk.paymentId as number,
      reason: version % 2 === 0 ? 'damaged' : 'late',
    }),
  };
  return [payment, refund];
}

const MIX = { create: 0.7, update: 0.25, move: 0.1 };

function* take(model: StreamModel, count: number): Iterable<BenchEvent> {
  for (let i = 0; i < count; i++) yield model.next();
}

/** W3's population: `scale` customers, 10 orders each, 3 items per order (dense ids). */
const W3_ORDERS = 10;
const W3_ITEMS = 3;
const W3_HOT_SHARE = 0.1;
const W3_HOT_UPDATES = 0.8;

function record(topic: string, id: number, after: JsonObject, op: 'c' | 'u'): BenchEvent['record'] {
  return {
    topic,
    key: Buffer.from(`{"id":${id}}`),
    value: Buffer.from(JSON.stringify({ op, before: null, after })),
  };
}

function* hotKeySetup(scale: number): Iterable<BenchEvent> {
  for (let c = 0; c < scale; c++) {
    yield { record: record('customers', c, customer.value(c, 0, {}), 'c'), head: c };
    for (let j = 0; j < W3_ORDERS; j++) {
      const o = c * W3_ORDERS + j;
      yield { record: record('orders', o, order(10).value(o, 0, { customerId: c }), 'c'), head: c };
      for (let k = 0; k < W3_ITEMS; k++) {
        const i = o * W3_ITEMS + k;
        yield { record: record('items', i, item.value(i, 0, { orderId: o }), 'c'), head: c };
      }
    }
  }
}

/** Child updates only; 80% of them touch the children of the hottest 10% of customers. */
function* hotKeyUpdates(count: number, random: Random, scale: number): Iterable<BenchEvent> {
  const hot = Math.max(1, Math.floor(scale * W3_HOT_SHARE));
  for (let n = 1; n <= count; n++) {
    const c = random() < W3_HOT_UPDATES ? randomInt(random, hot) : hot + randomInt(random, scale - hot);
    const o = c * W3_ORDERS + randomInt(random, W3_ORDERS);
    if (random() < 1 / (1 + W3_ITEMS)) {
      yield { record: record('orders', o, order(10).value(o, n, { customerId: c }), 'u'), head: c };
    } else {
      const i = o * W3_ITEMS + randomInt(random, W3_ITEMS);
      yield { record: record('items', i, item.value(i, n, { orderId: o }), 'u'), head: c };
    }
  }
}

export const WORKLOADS: Readonly<Record<WorkloadId, Workload>> = {
  W1: {
    id: 'W1',
    title: 'single view customers → orders → items (1:10:3)',
    graph: SINGLE_VIEW,
    setup: () => [],
    stream: (count, seed) =>
      take(new StreamModel([customer, order(10), item], MIX, seededRandom(seed)), count),
  },
  W2: {
    id: 'W2',
    title: 'diamond: refunds with two parents (orders, payments)',
    graph: DIAMOND,
    setup: () => [],
    stream: (count, seed) =>
      take(new StreamModel([customer, order(5), ...paymentsAndRefunds()], MIX, seededRandom(seed)), count),
  },
  W3: {
    id: 'W3',
    title: 'hot keys: 10% of heads get 80% of child updates',
    graph: SINGLE_VIEW,
    setup: (_seed, scale) => hotKeySetup(scale),
    stream: (count, seed, scale) => hotKeyUpdates(count, seededRandom(seed), scale),
  },
  W4: {
    id: 'W4',
    title: 'head-only passthrough (no edges)',
    graph: HEAD_ONLY,
    setup: () => [],
    stream: (count, seed) => take(new StreamModel([customer], MIX, seededRandom(seed)), count),
  },
};
