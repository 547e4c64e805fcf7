/**
 * fast-check runs for the parser fuzz tests: a bounded number per property in CI (seconds each),
 * `FUZZ_RUNS=<n>` for a long run. Each run prints how many inputs it tried, so a report can
 * quote the executions; a counterexample fails the test with fast-check's shrunk input and seed
 * (keep it as an explicit regression case next to the property).
 */
import fc from 'fast-check';

const runs = Number(process.env.FUZZ_RUNS ?? 0);

/** Checks `property` on `ciRuns` inputs (or `FUZZ_RUNS`), and prints the count under `name`. */
export function checkProperty<Ts extends [unknown, ...unknown[]]>(
  name: string,
  ciRuns: number,
  ...args: [...arbitraries: { [K in keyof Ts]: fc.Arbitrary<Ts[K]> }, predicate: (...values: Ts) => void]
): void {
  const numRuns = runs > 0 ? runs : ciRuns;
  const started = Date.now();
  const property = fc.property(...(args as Parameters<typeof fc.property<Ts>>));
  try {
    fc.assert(property, { numRuns });
  } catch (error) {
    // uvu prints the message only: add what the predicate threw to fast-check's counterexample.
    const cause = (error as Error).cause;
    if (cause instanceof Error) (error as Error).message += `\nFailure: ${cause.stack ?? cause.message}`;
    throw error;
  }
  console.log(`  fuzz ${name}: ${numRuns} inputs in ${Date.now() - started} ms`);
}

/** Any string: printable text, any UTF-16 code unit (lone surrogates too), or control bytes. */
export const anyText = (maxLength = 200): fc.Arbitrary<string> =>
  fc.oneof(
    fc.string({ maxLength }),
    fc.string({ unit: 'binary', maxLength }),
    fc.string({ unit: fc.constantFrom('\u0000', '\n', '\r', '\t', '\\', '"', ' ', '\u2028'), maxLength }),
  );

/** Text built from `vocabulary`: inputs that get past a lexer and deep into a parser. */
export const tokenSoup = (vocabulary: readonly string[], maxLength = 60): fc.Arbitrary<string> =>
  fc
    .array(fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...vocabulary) }, fc.string({ maxLength: 3 })), {
      maxLength,
    })
    .chain((tokens) =>
      fc
        .array(fc.constantFrom(' ', '', '\n'), { minLength: tokens.length, maxLength: tokens.length })
        .map((gaps) => tokens.map((token, i) => token + gaps[i]).join('')),
    );

/** `text` with a few random edits (insert, delete, replace at random places). */
export const mutated = (texts: readonly string[]): fc.Arbitrary<string> =>
  fc
    .tuple(
      fc.constantFrom(...texts),
      fc.array(fc.tuple(fc.nat(), fc.nat({ max: 8 }), fc.string({ maxLength: 6 })), { maxLength: 6 }),
    )
    .map(([text, edits]) =>
      edits.reduce((t, [at, cut, insert]) => {
        const i = t.length === 0 ? 0 : at % t.length;
        return t.slice(0, i) + insert + t.slice(i + cut);
      }, text),
    );
