/**
 * uvu's `test` and `suite`, with no silent failure. Every test file takes them from here (a lint
 * rule forbids importing them from 'uvu').
 *
 * uvu 0.5 runs a suite's hooks inside `try { … } finally { return … }`: a `before` hook that
 * throws is swallowed (the suite prints `(0 / N)` and no error), and so is an `after.each` hook
 * that throws after a failed test; a thrown non-`Error` crashes its formatter the same way. Here:
 * - a hook that throws prints its error and stack, and the process exits with code 1;
 * - a test that throws a non-`Error` fails with that value as its message;
 * - the test or hook running now is written to `STREAMFOLD_TEST_PROGRESS` (when set), so the
 *   runner can name it if it kills the file at its time limit.
 *
 * @example
 *   import { suite, test } from './suite.ts';
 *   test.before(async () => { kafka = await startKafka({ topics: { orders: 1 } }); });
 *   test('produces', async () => { … });
 *   test.run();
 */
import { writeFileSync } from 'node:fs';
import { inspect } from 'node:util';
import { type Callback, type Test, suite as uvuSuite } from 'uvu';

type Context = Record<string, unknown>;

let hookFailures = 0;
process.on('exit', () => {
  if (hookFailures > 0) process.exitCode = 1;
});

const progressFile = process.env.STREAMFOLD_TEST_PROGRESS;

function progress(what: string): void {
  if (progressFile) writeFileSync(progressFile, `${what}\n${Date.now()}\n`);
}

function asError(value: unknown): Error {
  return value instanceof Error ? value : new Error(`non-Error thrown: ${inspect(value)}`);
}

/** A test's handler: records what runs, and fails with an `Error` whatever was thrown. */
function guardTest<T>(label: string, handler: Callback<T>): Callback<T> {
  return async (context) => {
    progress(label);
    try {
      await handler(context);
    } catch (error) {
      throw asError(error);
    }
  };
}

/**
 * A hook: its error is printed here, since uvu may not print it. A `before` hook still throws, so
 * uvu skips the suite's tests (each counts as failed); an `after` hook does not, so uvu goes on
 * to print the totals; both leave the process failing.
 */
function guardHook<T>(label: string, handler: Callback<T>, rethrow: boolean): Callback<T> {
  return async (context) => {
    progress(label);
    try {
      await handler(context);
    } catch (value) {
      hookFailures++;
      const error = asError(value);
      process.stdout.write(`\n  ✘ ${label} failed: ${error.stack ?? error.message}\n`);
      if (rethrow) throw error;
    }
  };
}

export function suite<T = Context>(name = '', context?: T): Test<T> {
  const inner = uvuSuite<T>(name, context);
  const label = (what: string) => (name ? `${name} › ${what}` : what);
  const wrapped = ((testName: string, handler: Callback<T>) =>
    inner(testName, guardTest(label(testName), handler))) as Test<T>;
  wrapped.only = (testName, handler) => inner.only(testName, guardTest(label(testName), handler));
  wrapped.skip = (testName, handler) => inner.skip(testName, handler);
  wrapped.before = Object.assign((h: Callback<T>) => inner.before(guardHook(label('before hook'), h, true)), {
    // uvu reports a failing `before.each` as the failure of its test.
    each: (h: Callback<T>) => inner.before.each(guardTest(label('before.each hook'), h)),
  });
  wrapped.after = Object.assign((h: Callback<T>) => inner.after(guardHook(label('after hook'), h, false)), {
    each: (h: Callback<T>) => inner.after.each(guardHook(label('after.each hook'), h, false)),
  });
  wrapped.run = () => inner.run();
  return wrapped;
}

export const test = suite();

/**
 * `run` when `condition` holds, else a skipped test whose reason is printed (uvu counts it as
 * skipped, the runner reports it).
 *
 * @example
 *   when(await kafkaRestartable(), 'needs a broker of its own to restart')('restart', async () => {…});
 */
export function when<T>(condition: boolean, reason: string, run: Test<T> = test as Test<T>): Test<T>['only'] {
  if (condition) return (name, handler) => run(name, handler);
  return (name) => {
    process.stdout.write(`\n  ↷ skipped "${name}": ${reason}\n`);
    run.skip(name);
  };
}
