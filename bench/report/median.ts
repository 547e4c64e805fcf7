/**
 * The median of `runs` by `key` (higher is better), the worse middle one for an even count;
 * undefined when there are none. The table shows that run, so its figures belong together.
 */
export function medianBy<T>(runs: readonly T[], key: (run: T) => number): T | undefined {
  return [...runs].sort((a, b) => key(a) - key(b))[Math.floor((runs.length - 1) / 2)];
}

/** Lowest and highest of the values, when there are several (a row's range). */
export function rangeOf(values: readonly number[]): { readonly range?: readonly [number, number] } {
  return values.length > 1 ? { range: [Math.min(...values), Math.max(...values)] as const } : {};
}
