import { pino } from 'pino';
import type { Config } from '../../engine/config/index.ts';
import { EmbeddedEngine } from '../../engine/embedded/engine.ts';
import { parseInputLine } from '../../engine/embedded/input.ts';
import { formatOutputLine } from '../../engine/embedded/output.ts';
import { createEngineMetrics, type EngineMetrics } from '../../engine/metrics/index.ts';
import type { InputEvent } from './oracle.ts';

export interface OutputLine {
  topic: string;
  key: unknown;
  value: { op: string; before: unknown; after: unknown } | null;
}

export interface EmbeddedRun {
  readonly outputs: OutputLine[];
  /** Last value per output key (canonical key JSON or key-only string); null = tombstone. */
  readonly last: Map<string, OutputLine['value']>;
  readonly metrics: EngineMetrics;
  readonly embedded: EmbeddedEngine;
}

/**
 * Runs the embedded engine: each phase's events (or raw input lines) are fed, then drained, so a
 * later phase sees the outputs of the earlier ones emitted. The engine is stopped at the end
 * unless `keep` is set.
 */
export async function runPhases(
  config: Config,
  phases: readonly (readonly (InputEvent | Record<string, unknown>)[])[],
  options: { partitions?: number; keep?: boolean; maxBatchSize?: number } = {},
): Promise<EmbeddedRun> {
  const metrics = createEngineMetrics({ defaultMetrics: false });
  const outputs: OutputLine[] = [];
  const keyOnly = config.processor.mode === 'key-only';
  const embedded = await EmbeddedEngine.start({
    config,
    logger: pino({ level: process.env.LOG_LEVEL ?? 'silent' }),
    metrics,
    partitions: options.partitions ?? 3,
    ...(options.maxBatchSize ? { maxBatchSize: options.maxBatchSize } : {}),
    onOutput: (message) => outputs.push(JSON.parse(formatOutputLine(message, keyOnly)) as OutputLine),
  });
  for (const [i, phase] of phases.entries()) {
    for (const [line, event] of phase.entries()) {
      await embedded.feed(
        parseInputLine(JSON.stringify(event), `phase ${i}`, line + 1, embedded.inputTopics),
      );
    }
    await embedded.drain();
  }
  if (!options.keep) await embedded.stop();
  const last = new Map<string, OutputLine['value']>();
  for (const o of outputs) last.set(typeof o.key === 'string' ? o.key : JSON.stringify(o.key), o.value);
  return { outputs, last, metrics, embedded };
}

export function runEvents(
  config: Config,
  events: readonly (InputEvent | Record<string, unknown>)[],
  options: { partitions?: number; keep?: boolean; maxBatchSize?: number } = {},
): Promise<EmbeddedRun> {
  return runPhases(config, [events], options);
}

/** The value of a metric (summed over the series whose labels include `labels`). */
export async function counterValue(
  metrics: EngineMetrics,
  name: string,
  labels: Record<string, string> = {},
): Promise<number> {
  const metric = (await metrics.registry.getMetricsAsJSON()).find((m) => m.name === name);
  return (metric?.values ?? [])
    .filter((v) => Object.entries(labels).every(([k, x]) => (v.labels as Record<string, unknown>)[k] === x))
    .reduce((sum, v) => sum + Number(v.value), 0);
}

/** Change events: `c`/`u` with after, `d` with before: null. */
export const create = (
  topic: string,
  after: Record<string, unknown>,
  key: Record<string, unknown> = { id: after.id },
): InputEvent => ({ topic, key, value: { op: 'c', before: null, after } }) as InputEvent;
export const update = (
  topic: string,
  after: Record<string, unknown>,
  key: Record<string, unknown> = { id: after.id },
): InputEvent => ({ topic, key, value: { op: 'u', before: null, after } }) as InputEvent;
export const remove = (topic: string, key: Record<string, unknown>): InputEvent =>
  ({ topic, key, value: { op: 'd', before: null, after: null } }) as InputEvent;
