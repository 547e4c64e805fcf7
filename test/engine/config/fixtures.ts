import { readFileSync } from 'node:fs';
import { ConfigError, type ConfigIssue, parseConfig } from '../../../engine/config/index.ts';

export const EXAMPLES = ['single-view', 'two-parents', 'all-operators'] as const;

export function exampleText(name: string): string {
  return readFileSync(new URL(`../../../examples/${name}/config.json`, import.meta.url), 'utf8');
}

/** A configuration sample, edited freely (also into invalid shapes). */
// biome-ignore lint/suspicious/noExplicitAny: samples are edited into any shape, valid or not
export type Sample = Record<string, any>;

/** A fresh, mutable copy of the single-view example: the valid base every failing sample edits. */
export function baseConfig(): Sample {
  return JSON.parse(exampleText('single-view'));
}

/** The issues of a configuration that must be rejected; fails when it is accepted. */
export function issuesOf(config: unknown): ConfigIssue[] {
  try {
    parseConfig(JSON.stringify(config));
  } catch (error) {
    if (error instanceof ConfigError) return [...error.issues];
    throw error;
  }
  throw new Error('configuration was accepted');
}

export function edited(edit: (config: Sample) => void): Sample {
  const config = baseConfig();
  edit(config);
  return config;
}
