import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The engine's Prometheus metrics (`engine.md` §9), on a registry of its own so that several
 * engines in one process (tests, benchmarks) do not mix their figures.
 */
export function createEngineMetrics(options: { defaultMetrics?: boolean } = {}) {
  const registry = new Registry();
  if (options.defaultMetrics ?? true)
    // prom-client's names already start with `process_`/`nodejs_`: the prefix is the project's.
    collectDefaultMetrics({ register: registry, prefix: 'streamfold_' });
  const registers = [registry];
  return {
    registry,
    consumed: new Counter({
      name: 'streamfold_consumed_messages_total',
      help: 'Input messages consumed, per node',
      labelNames: ['node'],
      registers,
    }),
    invalid: new Counter({
      name: 'streamfold_invalid_messages_total',
      help: 'Input messages rejected (logged, dead-lettered when configured, skipped), per node and reason',
      labelNames: ['node', 'reason'],
      registers,
    }),
    tombstones: new Counter({
      name: 'streamfold_tombstones_total',
      help: 'Input tombstones ignored, per node',
      labelNames: ['node'],
      registers,
    }),
    produced: new Counter({
      name: 'streamfold_produced_messages_total',
      help: 'Messages acknowledged by the broker, per topic kind',
      labelNames: ['kind'],
      registers,
    }),
    internalIn: new Counter({
      name: 'streamfold_internal_updates_consumed_total',
      help: 'Internal updates consumed before compression',
      registers,
    }),
    internalOut: new Counter({
      name: 'streamfold_internal_updates_compressed_total',
      help: 'Internal updates left after compression (head recomputes)',
      registers,
    }),
    compressionRatio: new Gauge({
      name: 'streamfold_internal_update_compression_ratio',
      help: 'Consumed / compressed internal updates since start',
      registers,
    }),
    recomputes: new Counter({
      name: 'streamfold_head_recomputes_total',
      help: 'Head aggregates recomputed, per head',
      labelNames: ['head'],
      registers,
    }),
    batchSeconds: new Histogram({
      name: 'streamfold_batch_duration_seconds',
      help: 'Time to process one batch, per pipeline',
      labelNames: ['pipeline'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers,
    }),
    storeRoundTrips: new Gauge({
      name: 'streamfold_store_round_trips_total',
      help: 'Requests sent to the state store',
      registers,
    }),
    pollMessages: new Histogram({
      name: 'streamfold_poll_messages',
      help: 'Messages one poll of a consumer returned (0: it found none within its timeout), per pipeline',
      labelNames: ['pipeline'],
      buckets: [0, 1, 10, 100, 250, 500, 999, 1000],
      registers,
    }),
    backpressureSeconds: new Counter({
      name: 'streamfold_backpressure_seconds_total',
      help: 'Time a consumer did not poll because its pipeline had every in-flight batch taken, per pipeline',
      labelNames: ['pipeline'],
      registers,
    }),
    partitionPauses: new Counter({
      name: 'streamfold_partition_pauses_total',
      help: 'Partitions paused (a backpressure longer than the grace period, or the control plane), per pipeline',
      labelNames: ['pipeline'],
      registers,
    }),
    acknowledgementSeconds: new Histogram({
      name: 'streamfold_produce_acknowledgement_seconds',
      help: 'From handing a batch of records to the producer until the broker acknowledged them all, per kind',
      labelNames: ['kind'],
      buckets: [0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers,
    }),
    lag: new Gauge({
      name: 'streamfold_consumer_lag',
      help: 'Consumer lag per pipeline and partition',
      labelNames: ['pipeline', 'topic', 'partition'],
      registers,
    }),
  };
}

export type EngineMetrics = ReturnType<typeof createEngineMetrics>;
