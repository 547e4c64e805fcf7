import { readFile } from 'node:fs/promises';
import { configurationSchema } from './configuration.ts';
import { ConfigError, type ConfigIssue } from './errors.ts';
import type { Config } from './index.ts';
import { findJsonSyntaxProblem } from './json-syntax.ts';
import { checkReferences } from './references.ts';
import { reservedKeyIssues } from './reserved-keys.ts';
import { fromZodIssues } from './zod-issues.ts';

export interface LoadedConfig {
  config: Config;
  /** Valid but probably unintended (e.g. a cartesian edge). */
  warnings: ConfigIssue[];
}

function parseJson(text: string, source: string | undefined): unknown {
  try {
    return JSON.parse(text);
  } catch {
    const problem = findJsonSyntaxProblem(text);
    const rule = problem
      ? `malformed JSON at line ${problem.line}, column ${problem.column}: ${problem.reason}`
      : 'malformed JSON';
    throw new ConfigError([{ path: '(root)', rule }], source);
  }
}

/** Validates a configuration text: JSON syntax, schema (defaults applied), cross-references. */
export function parseConfig(text: string, source?: string): LoadedConfig {
  const input = parseJson(text.replace(/^\uFEFF/, ''), source);
  const reserved = reservedKeyIssues(input);
  if (reserved.length > 0) throw new ConfigError(reserved, source);
  const parsed = configurationSchema.safeParse(input);
  if (!parsed.success)
    throw new ConfigError(fromZodIssues(parsed.error.issues, input, configurationSchema), source);
  const { errors, warnings } = checkReferences(parsed.data);
  if (errors.length > 0) throw new ConfigError(errors, source);
  return { config: parsed.data, warnings };
}

export async function loadConfig(path: string): Promise<LoadedConfig> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : 'cannot be read';
    throw new ConfigError([{ path: '(root)', rule: `${path}: ${reason}` }], path);
  }
  return parseConfig(text, path);
}
