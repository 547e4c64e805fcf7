/**
 * One failover test per file: the file's three-node cluster (started before, stopped after), and
 * `REPEAT=n` runs of the test in a row on it, each printed with its duration and what it did,
 * then min/median/max. A failed run fails the test at once: it is never retried. Without the
 * local Apache Kafka the test is skipped with the reason.
 *
 * @example
 *   await failoverTest('leader killed: …', 'rest2broker failover', async (kafka, run) => { …; return 'what it did'; });
 */
import { test, when } from '../support/suite.ts';
import { type FailoverCluster, failoverUnavailable, startFailoverCluster } from './cluster.ts';

export const REPEAT = Number(process.env.REPEAT ?? 1);

export async function failoverTest(
  name: string,
  what: string,
  runOnce: (kafka: FailoverCluster, run: number) => Promise<string>,
): Promise<void> {
  const unavailable = await failoverUnavailable();
  let kafka: FailoverCluster | undefined;
  test.before(async () => {
    if (!unavailable) kafka = await startFailoverCluster();
  });
  test.after(async () => {
    await kafka?.stop();
  });
  when(!unavailable, unavailable ?? '')(name, () => repeatRuns(what, (run) => runOnce(kafka!, run)));
  test.run();
}

async function repeatRuns(what: string, run: (index: number) => Promise<string>): Promise<void> {
  const durations: number[] = [];
  for (let index = 0; index < REPEAT; index++) {
    const started = Date.now();
    const note = await run(index);
    durations.push((Date.now() - started) / 1000);
    console.log(`${what}: run ${index + 1}/${REPEAT} passed in ${durations.at(-1)!.toFixed(1)} s (${note})`);
  }
  const sorted = [...durations].sort((a, b) => a - b);
  const median = sorted[Math.floor((sorted.length - 1) / 2)]!;
  console.log(
    `${what}: ${REPEAT}/${REPEAT} passed; min ${sorted[0]!.toFixed(1)} s, median ${median.toFixed(1)} s, max ${sorted.at(-1)!.toFixed(1)} s`,
  );
}
