/** Reads conformance case files (one YAML document with `cases:` each). */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { ConformanceCase } from './run-case.ts';

export interface CaseFile {
  file: string;
  cases: ConformanceCase[];
}

export function loadCaseFiles(path: string): CaseFile[] {
  if (statSync(path).isDirectory()) {
    return readdirSync(path)
      .sort()
      .flatMap((name) => loadCaseFiles(join(path, name)));
  }
  if (!/\.ya?ml$/.test(path)) return [];
  const cases = parseAllDocuments(readFileSync(path, 'utf8')).flatMap((doc) => {
    if (doc.errors.length > 0) throw new Error(`${path}: ${doc.errors[0]!.message}`);
    return ((doc.toJS() as { cases?: unknown[] } | null)?.cases ?? []) as ConformanceCase[];
  });
  return [{ file: path, cases }];
}
