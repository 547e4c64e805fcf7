export interface RunFigures {
  readonly inputRecords: number;
  readonly outputRecords: number;
  readonly seconds: number;
  /** `internalUpdates.config.compressionWindowMs`. */
  readonly compressionWindowMs: number;
  /** Nodes of the graph: at most one compression window each on the way up from a change. */
  readonly nodes: number;
}

/** Below this many times the compression waits a run includes, its rate measures the waits. */
const RATE_MIN_RUN_OVER_WAITS = 10;

/**
 * The last line of an embedded run: records in, messages out, time, and a rate only when the run
 * is long enough for it to measure the engine. Draining waits out a compression window per level
 * of the graph (about a second for the bundled sample), so a small input's rate says nothing.
 */
export function runSummary(figures: RunFigures): string {
  const { inputRecords, outputRecords, seconds } = figures;
  const line = `streamfold: ${inputRecords} input records -> ${outputRecords} output messages in ${seconds.toFixed(2)} s`;
  const waitsSeconds = (figures.compressionWindowMs * figures.nodes) / 1000;
  if (seconds <= 0 || seconds < RATE_MIN_RUN_OVER_WAITS * waitsSeconds) return line;
  return `${line} (${Math.round(inputRecords / seconds)} input records/s)`;
}
