/** One output message: the head id of its key and when the broker appended it. */
export interface OutputStamp {
  readonly head: number;
  readonly time: number;
}

export interface LatencySummary {
  readonly samples: number;
  /** Inputs with a head whose head never emitted after them (e.g. its head was deleted). */
  readonly unanswered: number;
  readonly p50: number | null;
  readonly p99: number | null;
  readonly max: number | null;
}

/**
 * Latency of each input = time from its append to the first output of its head appended at or
 * after it (per head, outputs are in append order: one head key is one partition). Inputs with
 * head -1 (orphans: no head can answer) are not sampled.
 */
export function inputLatencies(
  inputTimes: ArrayLike<number>,
  inputHeads: ArrayLike<number>,
  outputs: Iterable<OutputStamp>,
): LatencySummary {
  const byHead = new Map<number, number[]>();
  for (const o of outputs) {
    const list = byHead.get(o.head);
    if (list) list.push(o.time);
    else byHead.set(o.head, [o.time]);
  }
  const samples: number[] = [];
  let unanswered = 0;
  for (let i = 0; i < inputTimes.length; i++) {
    const head = inputHeads[i] as number;
    if (head < 0) continue;
    const time = inputTimes[i] as number;
    const answer = firstAtOrAfter(byHead.get(head) ?? [], time);
    if (answer === undefined) unanswered++;
    else samples.push(answer - time);
  }
  samples.sort((a, b) => a - b);
  return {
    samples: samples.length,
    unanswered,
    p50: percentile(samples, 0.5),
    p99: percentile(samples, 0.99),
    max: samples.length > 0 ? (samples[samples.length - 1] as number) : null,
  };
}

/** Nearest-rank percentile of sorted values; null when there are none. */
export function percentile(sorted: readonly number[], q: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank] as number;
}

function firstAtOrAfter(sorted: readonly number[], time: number): number | undefined {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((sorted[mid] as number) < time) lo = mid + 1;
    else hi = mid;
  }
  return sorted[lo];
}
