import { Counter, Histogram, type Registry } from 'prom-client';

export interface SidecarMetrics {
  readonly decisions: Counter<'policy' | 'result'>;
  readonly policyDuration: Histogram<'policy'>;
  readonly upstreamDuration: Histogram<'status'>;
}

const FAST_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5];

/** With no registry (`EXPOSE_METRICS=false`) the metrics are still counted, just not exposed. */
export function sidecarMetrics(registry: Registry | undefined): SidecarMetrics {
  const registers = registry ? [registry] : [];
  return {
    decisions: new Counter({
      name: 'rond_policy_decisions_total',
      help: 'Policy decisions by policy and result (allowed, denied, error)',
      labelNames: ['policy', 'result'],
      registers,
    }),
    policyDuration: new Histogram({
      name: 'rond_policy_evaluation_duration_seconds',
      help: 'Policy evaluation duration',
      labelNames: ['policy'],
      buckets: FAST_BUCKETS,
      registers,
    }),
    upstreamDuration: new Histogram({
      name: 'rond_upstream_duration_seconds',
      help: 'Time until the upstream answered with its headers',
      labelNames: ['status'],
      buckets: [...FAST_BUCKETS, 1, 2.5, 5, 10, 30],
      registers,
    }),
  };
}
