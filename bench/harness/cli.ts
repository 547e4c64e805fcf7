/** Option parsing shared by the benchmark entry points (`bench/run.ts`, `bench/kafka.ts`). */

/** The comma-separated items of `text`; exits 2 on one that is not `known`. */
export function list(text: string, known: readonly string[]): string[] {
  const items = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = items.filter((i) => !known.includes(i));
  if (unknown.length > 0)
    fail(`unknown value(s) ${unknown.join(', ')}; expected some of ${known.join(', ')}`);
  return items;
}

/** `text` as a positive integer, `fallback` when absent; exits 2 on anything else. */
export function positive(text: string | undefined, fallback: number, flag: string): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n <= 0) fail(`${flag} must be a positive integer, got "${text}"`);
  return n;
}

export function fail(message: string): never {
  console.error(`bench: ${message}`);
  process.exit(2);
}
