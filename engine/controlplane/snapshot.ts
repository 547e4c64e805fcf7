import type { RunningEngine } from '../runtime/engine.ts';
import type { PartitionFeedback } from './messages.ts';

/** What the engine measured for one node; the control plane adds the node's state. */
export interface NodeSample {
  readonly node: string;
  readonly messagesPerSecond: number;
  readonly partitions: readonly PartitionFeedback[];
}

export interface EngineSample {
  /** Window (ms) the rates are measured over: since the previous sample. */
  readonly windowMs: number;
  readonly nodes: readonly NodeSample[];
}

/** Measures the engine for one feedback event. */
export type FeedbackSource = () => Promise<EngineSample>;

/**
 * Samples a running engine: per node, messages/s since the previous sample (from the cumulative
 * `streamfold_consumed_messages_total`) and per assigned partition the committed offset and lag.
 */
export function engineSnapshot(
  engine: RunningEngine,
  nodes: readonly string[],
  now: () => number = Date.now,
): FeedbackSource {
  let previousAt = now();
  let previous = new Map<string, number>();
  return async () => {
    const [counts, lags] = await Promise.all([
      consumedPerNode(engine),
      Promise.all(nodes.map(async (node) => (await engine.consumers.get(node)?.lag()) ?? [])),
    ]);
    const at = now();
    const windowMs = Math.max(at - previousAt, 1);
    const samples = nodes.map((node, index) => ({
      node,
      messagesPerSecond: (Math.max((counts.get(node) ?? 0) - (previous.get(node) ?? 0), 0) * 1000) / windowMs,
      partitions: (lags[index] ?? []).map((p) => ({
        topic: p.topic,
        partition: p.partition,
        committedOffset: p.committed,
        highWatermark: p.high,
        lag: p.lag,
      })),
    }));
    previousAt = at;
    previous = counts;
    return { windowMs, nodes: samples };
  };
}

async function consumedPerNode(engine: RunningEngine): Promise<Map<string, number>> {
  const { values } = await engine.context.metrics.consumed.get();
  return new Map(values.map((v) => [String(v.labels.node), v.value]));
}
