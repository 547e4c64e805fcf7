/**
 * `REPEAT=n` runs a failover test n times in a row on its file's cluster, each run printed with
 * its duration, then min/median/max. A failed run fails the test at once: it is never retried.
 */
export const REPEAT = Number(process.env.REPEAT ?? 1);

export async function repeatRuns(
  what: string,
  run: (index: number) => Promise<string | undefined>,
): Promise<void> {
  const durations: number[] = [];
  for (let index = 0; index < REPEAT; index++) {
    const started = Date.now();
    const note = await run(index);
    durations.push((Date.now() - started) / 1000);
    console.log(
      `${what}: run ${index + 1}/${REPEAT} passed in ${durations.at(-1)!.toFixed(1)} s${note ? ` (${note})` : ''}`,
    );
  }
  const sorted = [...durations].sort((a, b) => a - b);
  const median = sorted[Math.floor((sorted.length - 1) / 2)]!;
  console.log(
    `${what}: ${REPEAT}/${REPEAT} passed; min ${sorted[0]!.toFixed(1)} s, median ${median.toFixed(1)} s, max ${sorted.at(-1)!.toFixed(1)} s`,
  );
}
