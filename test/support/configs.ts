import type { Config } from '../../engine/config/index.ts';
import { parseConfig } from '../../engine/config/index.ts';
import type { GenericFilter } from '../../engine/filter/ast.ts';

export interface GraphSpec {
  /** parent -> child edges with their filters; node ids are also consumer names and topics. */
  readonly edges: ReadonlyArray<{ id: string; parent: string; child: string; filter: GenericFilter }>;
  readonly nodes: readonly string[];
}

/** The configuration document before parsing: tests patch it, the real parser validates it. */
// biome-ignore lint/suspicious/noExplicitAny: a test patches arbitrary paths of the raw JSON document
export type RawConfig = Record<string, any>;

/**
 * A valid configuration for a graph, through the real parser (defaults applied, references
 * checked). Topics are the node ids; `patch` edits the raw document first (mode, window,
 * connections...), so every test config is validated like a user's.
 */
export function configFor(spec: GraphSpec, patch: (document: RawConfig) => void = () => {}): Config {
  const connection = { type: 'kafka', config: { 'bootstrap.servers': '127.0.0.1:9092' } };
  const document: RawConfig = {
    id: 'testEngine01',
    connections: { main: connection },
    consumers: {
      type: 'kafka',
      config: Object.fromEntries(
        spec.nodes.map((n) => [n, { topic: n, connectionName: 'main', commitIntervalMs: 0 }]),
      ),
    },
    producer: { type: 'kafka', config: { connectionName: 'main', topic: 'output' } },
    processor: {
      mode: 'read-delete',
      graph: {
        edges: spec.edges.map((e) => ({ id: e.id, filter: e.filter })),
        nodes: spec.nodes.map((n) => ({
          id: n,
          edges: {
            in: spec.edges.filter((e) => e.child === n).map((e) => e.id),
            out: spec.edges.filter((e) => e.parent === n).map((e) => e.id),
          },
        })),
      },
      persistence: { type: 'mongodb', config: { url: 'mongodb://127.0.0.1:27017' } },
      internalUpdates: {
        type: 'kafka',
        config: { topic: 'internal', connectionName: 'main', compressionWindowMs: 20 },
      },
    },
  };
  patch(document);
  return parseConfig(JSON.stringify(document)).config;
}

const eq = (foreign: string, local: string): GenericFilter => ({
  $eq: [{ foreign: [foreign] }, { local: [local] }],
});

/** customers -> orders -> items: the single view. */
export const SINGLE_VIEW: GraphSpec = {
  nodes: ['customers', 'orders', 'items'],
  edges: [
    { id: 'customerOrders', parent: 'customers', child: 'orders', filter: eq('customerId', 'id') },
    { id: 'orderItems', parent: 'orders', child: 'items', filter: eq('orderId', 'id') },
  ],
};

/** A diamond under one head: refunds need a linked order and a linked payment of the customer. */
export const DIAMOND: GraphSpec = {
  nodes: ['customers', 'orders', 'payments', 'refunds'],
  edges: [
    { id: 'customerOrders', parent: 'customers', child: 'orders', filter: eq('customerId', 'id') },
    { id: 'customerPayments', parent: 'customers', child: 'payments', filter: eq('customerId', 'id') },
    { id: 'orderRefunds', parent: 'orders', child: 'refunds', filter: eq('orderId', 'id') },
    { id: 'paymentRefunds', parent: 'payments', child: 'refunds', filter: eq('paymentId', 'id') },
  ],
};
