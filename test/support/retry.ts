/**
 * Repeating a whole test run, only when a stand-in's known defect caused its failure
 * (design/test-infra.md). Each repeat is printed with the evidence; an assertion failure, or a
 * failure no stand-in log explains, is never repeated.
 *
 * @example
 *   const last = await repeatOnStandInDefect({ what: 'kafka e2e', attempts: 5, defect: (e) => kafka.defect(e),
 *     renew: async () => { await kafka.stop(); kafka = await startKafka({ topics }); } },
 *     (attempt) => runPhases(attempt));
 */
import { AssertionError } from 'node:assert';

export interface RepeatOptions {
  /** Named in the printed line of each repeat. */
  readonly what: string;
  readonly attempts: number;
  /** The defect behind a failure, from the stand-in's log (e.g. `KafkaFixture.defect`), else null. */
  readonly defect: (error: unknown) => string | null;
  /** Replaces the faulted stand-in before the next attempt (none when each run starts its own). */
  readonly renew?: () => Promise<void>;
}

export async function repeatOnStandInDefect<T>(
  options: RepeatOptions,
  run: (attempt: number) => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run(attempt);
    } catch (error) {
      const defect = error instanceof AssertionError ? null : options.defect(error);
      if (!defect || attempt >= options.attempts) throw error;
      process.stdout.write(
        `\n  ↻ ${options.what}: attempt ${attempt} of ${options.attempts} failed on a stand-in defect, repeating on a fresh one\n` +
          `    ${defect}\n    (the failure: ${(error as Error).message?.split('\n')[0]})\n`,
      );
      await options.renew?.();
    }
  }
}
