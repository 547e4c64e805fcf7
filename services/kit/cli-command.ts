/** The contract of one `streamfold <name>` command: the CLI (engine/cli) runs it; a service may provide one (the Rego engine's `rego`). */
import type { ParseArgsConfig } from 'node:util';

export type OptionsConfig = NonNullable<ParseArgsConfig['options']>;

export interface ParsedCommandArgs {
  positionals: string[];
  values: Record<string, string | boolean | (string | boolean)[] | undefined>;
}

/** One `streamfold <name>` command. `run` resolves to the process exit code. */
export interface CliCommand {
  name: string;
  /** One line for `streamfold --help`. */
  summary: string;
  /** The full `streamfold <name> --help` text. */
  usage: string;
  options: OptionsConfig;
  /**
   * False: flags other than `options` reach `run` (as `values`) instead of being a usage error,
   * for a command that checks them itself (`service` passes them to the service). Default true.
   */
  strict?: boolean;
  /** How many positionals the command takes: exactly a number, or at least `min` (subcommands). */
  positionals: number | { min: number };
  run(args: ParsedCommandArgs, io: CliIo): Promise<number>;
}

export interface CliIo {
  out(line: string): void;
  err(line: string): void;
}

/** A mistake in how the command was invoked: usage is printed and the exit code is 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
