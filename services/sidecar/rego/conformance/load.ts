/** Reads conformance case files (one YAML document with `cases:` each). */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { ConformanceCase } from './run-case.ts';
import { parseYamlDocuments } from './yaml.ts';

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
  const cases = parseYamlDocuments(readFileSync(path, 'utf8')).flatMap(
    (doc) => ((doc as { cases?: unknown[] } | null)?.cases ?? []) as unknown as ConformanceCase[],
  );
  return [{ file: path, cases }];
}
