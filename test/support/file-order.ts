/**
 * The order the runner starts its files in: longest first, by the durations of the last run on
 * this machine. With a few files at a time, a long file started last stretches the run by its
 * whole length (the failover files take one to two minutes each); started first, it overlaps the
 * many short ones. Files with no recorded duration (new ones) count as long: they start first.
 *
 * The durations live in `~/.cache/streamfold/test-durations.json` (beside the Kafka classpath and
 * the Python tools), per tree (the folder the runner runs in: a clone, a worktree, or the fixture
 * trees of the runner's own tests); a missing or unreadable file only means alphabetical order.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { cacheDir } from '../../local-kafka/classpath.ts';

type Durations = Record<string, number>;

const durationsFile = () => join(cacheDir(), 'test-durations.json');

/** Every tree's durations, by the tree's absolute path. */
function recordedTrees(): Record<string, Durations> {
  try {
    const parsed: unknown = JSON.parse(readFileSync(durationsFile(), 'utf8'));
    return parsed && typeof parsed === 'object' ? (parsed as Record<string, Durations>) : {};
  } catch {
    return {};
  }
}

/** `files` longest first (unknown ones before all), ties alphabetical. */
export function longestFirst(files: readonly string[]): string[] {
  const durations = recordedTrees()[process.cwd()] ?? {};
  const weight = (file: string) => {
    const ms = durations[file];
    return typeof ms === 'number' && Number.isFinite(ms) ? ms : Number.POSITIVE_INFINITY;
  };
  return [...files].sort((a, b) => weight(b) - weight(a) || a.localeCompare(b));
}

/**
 * Remembers this run's durations for the next run's order: files not run keep theirs, files gone
 * from the tree are forgotten, and so are trees gone from the machine.
 */
export function recordDurations(results: ReadonlyArray<{ file: string; ms: number }>): void {
  try {
    const tree = process.cwd();
    const trees = Object.fromEntries(
      Object.entries(recordedTrees()).filter(
        ([root, durations]) => isAbsolute(root) && typeof durations === 'object' && existsSync(root),
      ),
    );
    const kept = Object.entries(trees[tree] ?? {}).filter(([file]) => existsSync(join(tree, file)));
    trees[tree] = Object.fromEntries([...kept, ...results.map((r) => [r.file, r.ms] as const)]);
    mkdirSync(dirname(durationsFile()), { recursive: true });
    writeFileSync(durationsFile(), `${JSON.stringify(trees, null, 1)}\n`);
  } catch {
    // A read-only cache only costs the next run its order.
  }
}
