/**
 * What a Kafka-mode run measures, started paused: the engine (`kafka-engine.ts`) or the 2-hop echo
 * (`kafka-echo.ts`). Both join their consumer groups first and read nothing until `start()`, so
 * the measured time holds no group join, only consuming the input and producing the output.
 */
export interface KafkaTarget {
  /** Every consumer has its partitions assigned. */
  ready(): Promise<boolean>;
  /** Starts reading the input topics. */
  start(): void;
  /** Nothing left to consume, everything consumed committed (so every output acknowledged). */
  idle(): Promise<boolean>;
  /** Rejects once the target failed: waits race it so that a failure ends the run at once. */
  readonly failed: Promise<never>;
  stop(): Promise<void>;
}

/** Topic names of one run: fresh ones per run, so no run reads another's records or offsets. */
export interface RunTopics {
  /** Workload node -> its input topic. */
  readonly inputs: ReadonlyMap<string, string>;
  /** The internal-updates topic (the echo's intermediate hop). */
  readonly internal: string;
  readonly output: string;
}

export function runTopics(prefix: string, nodes: readonly string[]): RunTopics {
  return {
    inputs: new Map(nodes.map((node) => [node, `${prefix}.${node}`])),
    internal: `${prefix}.internal`,
    output: `${prefix}.output`,
  };
}

/** Polls `check` every `intervalMs` until it holds; a failure of the target or the bound ends it. */
export async function until(
  what: string,
  check: () => Promise<boolean>,
  target: KafkaTarget,
  timeoutMs: number,
  intervalMs = 20,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await Promise.race([check(), target.failed]))) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting until ${what}`);
    await Promise.race([new Promise((r) => setTimeout(r, intervalMs)), target.failed]);
  }
}
