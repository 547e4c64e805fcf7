/**
 * What a Kafka-mode run measures, started paused: the engine (`kafka-engine.ts`), the 2-hop echo
 * (`kafka-echo.ts`) or the Kafka Streams peer (`kafka-streams-peer.ts`). Each joins its consumer
 * groups first and reads nothing until `start()`, so the measured time holds no group join, only
 * consuming the input and producing the output.
 */
export interface KafkaTarget {
  /** Every consumer has its partitions assigned. */
  ready(): Promise<boolean>;
  /**
   * Starts reading the input topics. The Kafka Streams peer resolves once its instance runs: a
   * paused instance restores its (empty) stores only when resumed, and that is start-up too.
   */
  start(): void | Promise<void>;
  /** Nothing left to consume, everything consumed committed (so every output acknowledged). */
  idle(): Promise<boolean>;
  /** Rejects once the target failed: waits race it so that a failure ends the run at once. */
  readonly failed: Promise<never>;
  stop(): Promise<void>;
  /** The process it runs in when not this one (the Kafka Streams peer's JVM): its CPU is measured. */
  readonly pid?: number;
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
