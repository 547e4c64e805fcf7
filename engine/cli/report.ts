import type { CliIo } from '../../services/kit/cli-command.ts';
import { ConfigError, type ConfigIssue, formatIssue } from '../config/errors.ts';
import { type Config, loadConfig } from '../config/index.ts';

export function printWarnings(warnings: readonly ConfigIssue[], io: CliIo): void {
  for (const warning of warnings) io.err(`warning: ${formatIssue(warning)}`);
}

/** Prints an expected failure (no stack trace) and returns its exit code; rethrows the rest. */
export function reportConfigError(error: unknown, io: CliIo, source: string): number {
  if (!(error instanceof ConfigError)) throw error;
  const count = error.issues.length === 1 ? '1 problem' : `${error.issues.length} problems`;
  io.err(`${error.source ?? source}: invalid, ${count}`);
  for (const issue of error.issues) io.err(`  ${formatIssue(issue)}`);
  return 1;
}

/** Loads a configuration for a command: the config, or the exit code after printing why not. */
export async function loadConfigOrReport(source: string, io: CliIo): Promise<Config | number> {
  try {
    const { config, warnings } = await loadConfig(source);
    printWarnings(warnings, io);
    return config;
  } catch (error) {
    return reportConfigError(error, io, source);
  }
}
