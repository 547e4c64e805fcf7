/** The runner's file order (test/support/file-order.ts): longest first by the last run, new files first. */
import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { longestFirst, recordDurations } from '../support/file-order.ts';
import { test } from '../support/suite.ts';

const cache = mkdtempSync(join(tmpdir(), 'streamfold-file-order-'));
process.env.XDG_CACHE_HOME = cache;
test.after(() => rmSync(cache, { recursive: true, force: true }));

test('with no recorded run, the order is alphabetical', () => {
  assert.deepEqual(longestFirst(['b.test.ts', 'a.test.ts']), ['a.test.ts', 'b.test.ts']);
});

test('files start longest first by the last run; unknown ones before every known one', () => {
  process.chdir(mkdtempSync(join(cache, 'tree-')));
  for (const file of ['short.test.ts', 'long.test.ts', 'middle.test.ts']) writeFileSync(file, '');
  recordDurations([
    { file: 'short.test.ts', ms: 1_000 },
    { file: 'long.test.ts', ms: 120_000 },
  ]);
  recordDurations([{ file: 'middle.test.ts', ms: 30_000 }]);
  assert.deepEqual(longestFirst(['short.test.ts', 'middle.test.ts', 'new.test.ts', 'long.test.ts']), [
    'new.test.ts',
    'long.test.ts',
    'middle.test.ts',
    'short.test.ts',
  ]);
});

test('files gone from the tree are forgotten at the next record', () => {
  rmSync('long.test.ts');
  recordDurations([{ file: 'short.test.ts', ms: 1_000 }]);
  assert.deepEqual(longestFirst(['long.test.ts', 'middle.test.ts', 'short.test.ts']), [
    'long.test.ts',
    'middle.test.ts',
    'short.test.ts',
  ]);
});

test('each tree has its own durations', () => {
  const here = process.cwd();
  process.chdir(mkdtempSync(join(cache, 'other-')));
  writeFileSync('short.test.ts', '');
  recordDurations([{ file: 'short.test.ts', ms: 500_000 }]);
  process.chdir(here);
  assert.deepEqual(longestFirst(['middle.test.ts', 'short.test.ts']), ['middle.test.ts', 'short.test.ts']);
});

test('an unreadable durations file only costs the order', () => {
  writeFileSync(join(cache, 'streamfold', 'test-durations.json'), '{ not json');
  assert.deepEqual(longestFirst(['b.test.ts', 'a.test.ts']), ['a.test.ts', 'b.test.ts']);
});

test.run();
