import * as assert from 'uvu/assert';
import { runSummary } from '../../../engine/cli/summary.ts';
import { test } from '../../support/suite.ts';

const sample = { inputRecords: 14, outputRecords: 2, seconds: 1.02, compressionWindowMs: 250, nodes: 3 };

test('a short run: records in, messages out and time, no rate (it would measure the compression windows)', () => {
  assert.is(runSummary(sample), 'streamfold: 14 input records -> 2 output messages in 1.02 s');
});

test('a run ten times longer than its compression waits gets a rate', () => {
  const long = { ...sample, inputRecords: 1_000_000, outputRecords: 1000, seconds: 40 };
  assert.is(
    runSummary(long),
    'streamfold: 1000000 input records -> 1000 output messages in 40.00 s (25000 input records/s)',
  );
  assert.not.match(runSummary({ ...long, seconds: 7.49 }), /records\/s/, 'just under 10 × 3 × 250 ms');
  assert.match(runSummary({ ...long, seconds: 7.5 }), /\(133333 input records\/s\)/);
});

test('longer windows or a deeper graph need a longer run for a rate', () => {
  const run = { ...sample, inputRecords: 100_000, seconds: 20 };
  assert.match(runSummary(run), /records\/s/);
  assert.not.match(runSummary({ ...run, compressionWindowMs: 1000 }), /records\/s/);
  assert.not.match(runSummary({ ...run, nodes: 9 }), /records\/s/);
});

test('no compression window: any run that took time has a rate; an instant one has none', () => {
  const run = { ...sample, compressionWindowMs: 0 };
  assert.match(runSummary(run), /\(14 input records\/s\)/);
  assert.not.match(runSummary({ ...run, seconds: 0 }), /records\/s/);
});

test.run();
