import { readFile } from 'node:fs/promises';
import { pathDeeperThan } from '../../operators/record/json.ts';
import { configurationSchema } from './configuration.ts';
import { ConfigError, type ConfigIssue } from './errors.ts';
import type { Config } from './index.ts';
import { formatJsonPath } from './json-path.ts';
import { findJsonSyntaxProblem } from './json-syntax.ts';
import { checkReferences } from './references.ts';
import { reservedKeyIssues } from './reserved-keys.ts';
import { fromZodIssues } from './zod-issues.ts';

export interface LoadedConfig {
  config: Config;
  /** Valid but probably unintended (e.g. a cartesian edge). */
  warnings: ConfigIssue[];
}

/** How deep the document may nest; the checks after parsing walk it recursively. */
export const MAX_CONFIG_DEPTH = 512;

function parseJson(text: string, source: string | undefined): unknown {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    const problem = findJsonSyntaxProblem(text);
    const rule = problem
      ? `malformed JSON at line ${problem.line}, column ${problem.column}: ${problem.reason}`
      : 'malformed JSON';
    throw new ConfigError([{ path: '(root)', rule }], source);
  }
  const deep = pathDeeperThan(document, MAX_CONFIG_DEPTH);
  if (deep) {
    const rule = `nested deeper than ${MAX_CONFIG_DEPTH} levels`;
    throw new ConfigError([{ path: formatJsonPath(deep), rule }], source);
  }
  return document;
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
