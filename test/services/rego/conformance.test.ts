/**
 * Runs every OPA conformance case (shared/conformance/opa/v1) and holds a ratchet: each case not
 * in known-failures.json must pass, and each case listed there must still fail (a case that now
 * passes must be removed from the list, so the list only shrinks). Prints the pass rate per
 * category.
 */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { loadCaseFiles } from '../../../services/rego/conformance/load.ts';
import { runCase } from '../../../services/rego/conformance/run-case.ts';
import { test } from '../../support/suite.ts';
import { conformanceCasesDir } from './helpers.ts';

const CASES_DIR = conformanceCasesDir();
const KNOWN_FAILURES = join(import.meta.dirname, 'known-failures.json');

/** `file.yaml#note`, with ` (n)` for the n-th repeat of a note within its file. */
function caseIds(file: string, notes: string[]): string[] {
  const seen = new Map<string, number>();
  return notes.map((note) => {
    const n = (seen.get(note) ?? 0) + 1;
    seen.set(note, n);
    return `${relative(CASES_DIR, file)}#${note}${n > 1 ? ` (${n})` : ''}`;
  });
}

test('OPA conformance cases: every case passes unless listed as a known failure', async () => {
  const known = JSON.parse(readFileSync(KNOWN_FAILURES, 'utf8')) as Record<string, string>;
  const perCategory = new Map<string, { passed: number; total: number }>();
  const unexpectedFailures: string[] = [];
  const nowPassing: string[] = [];
  let passed = 0;
  let total = 0;
  for (const { file, cases } of loadCaseFiles(CASES_DIR)) {
    const ids = caseIds(
      file,
      cases.map((c) => c.note),
    );
    for (const [i, c] of cases.entries()) {
      const id = ids[i]!;
      const outcome = await runCase(c);
      const category = relative(CASES_DIR, file).split('/')[0]!;
      const stats = perCategory.get(category) ?? { passed: 0, total: 0 };
      stats.total++;
      total++;
      if (outcome.pass) {
        stats.passed++;
        passed++;
        if (id in known) nowPassing.push(id);
      } else if (!(id in known)) {
        unexpectedFailures.push(
          `${id}: ${outcome.error ? `${outcome.error.code}: ${outcome.error.message}` : JSON.stringify(outcome.result)}`,
        );
      }
      perCategory.set(category, stats);
    }
  }
  const rows = [...perCategory].map(([cat, s]) => `${cat} ${s.passed}/${s.total}`);
  console.log(
    `conformance: ${passed}/${total} passed (${((100 * passed) / total).toFixed(1)}%)\n  ${rows.join(', ')}`,
  );
  assert.ok(total >= 423, `expected the 423 cases, found ${total}`);
  assert.deepEqual(unexpectedFailures, [], 'cases failing that are not in known-failures.json');
  assert.deepEqual(nowPassing, [], 'cases in known-failures.json that now pass: remove them from the list');
});

test.run();
