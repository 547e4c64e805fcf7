/**
 * Seeded random input for property and end-to-end tests: a xorshift32 generator (the same seed
 * gives the same events on every machine) and a mix of creates, updates (child moves included:
 * a new parent id) and deletes over a graph's nodes.
 *
 * @example
 *   const events = randomEvents(seeded(42), 300, {
 *     nodes: ['customers', 'orders'],
 *     population: (node) => (node === 'customers' ? 6 : 12),
 *     deleteRate: () => 0.15,
 *     fields: { orders: { customerId: (draw) => draw.id(6) } },
 *   });
 */
import { DIAMOND } from './configs.ts';
import { create, remove, update } from './embedded.ts';
import type { InputEvent } from './oracle.ts';

/** A generator of numbers in [0, 1), seeded. */
export function seeded(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 0x1_0000_0000;
  };
}

export interface Draw {
  pick<T>(list: readonly T[]): T;
  /** An id in 1..upTo. */
  id(upTo: number): number;
}

export interface EventMix {
  readonly nodes: readonly string[];
  /** Ids of a node are drawn from 1..population(node). */
  readonly population: (node: string) => number;
  readonly deleteRate: (node: string) => number;
  /** Per node, the fields an event sets besides `id` and `n` (its index), drawn in this order. */
  readonly fields: Readonly<Record<string, Readonly<Record<string, (draw: Draw) => unknown>>>>;
}

export function randomEvents(rnd: () => number, count: number, mix: EventMix): InputEvent[] {
  const draw: Draw = {
    pick: (list) => list[Math.floor(rnd() * list.length)]!,
    id: (upTo) => Math.floor(rnd() * upTo) + 1,
  };
  return Array.from({ length: count }, (_, n) => {
    const node = draw.pick(mix.nodes);
    const id = draw.id(mix.population(node));
    if (rnd() < mix.deleteRate(node)) return remove(node, { id });
    const after: Record<string, unknown> = { id, n };
    for (const [field, value] of Object.entries(mix.fields[node] ?? {})) after[field] = value(draw);
    return rnd() < 0.5 ? create(node, after) : update(node, after);
  });
}

/**
 * The `DIAMOND` graph's mix: `customers` heads, `children` ids per child node, orders and
 * payments under a customer, refunds under an order and a payment (often of other customers).
 */
export function diamondMix(options: {
  readonly customers: number;
  readonly children: number;
  readonly customerDeleteRate: number;
  readonly childDeleteRate: number;
}): EventMix {
  const { customers, children } = options;
  return {
    nodes: DIAMOND.nodes,
    population: (node) => (node === 'customers' ? customers : children),
    deleteRate: (node) => (node === 'customers' ? options.customerDeleteRate : options.childDeleteRate),
    fields: {
      orders: { customerId: (draw) => draw.id(customers) },
      payments: { customerId: (draw) => draw.id(customers) },
      refunds: { orderId: (draw) => draw.id(children), paymentId: (draw) => draw.id(children) },
    },
  };
}

/** Events over `DIAMOND`: 12 customers (deleted at `customerDeleteRate`), 20 ids per child node. */
export function diamondEvents(seed: number, count: number, customerDeleteRate: number): InputEvent[] {
  return randomEvents(
    seeded(seed),
    count,
    diamondMix({ customers: 12, children: 20, customerDeleteRate, childDeleteRate: 0.1 }),
  );
}
