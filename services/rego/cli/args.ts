/** The options of `streamfold rego`, shared by its subcommands; each accepts only its own. */
import { type ParsedCommandArgs, UsageError } from '../../kit/cli-command.ts';
import { type Format, formatOf } from './output.ts';

export const REGO_OPTIONS = {
  data: { type: 'string', short: 'd', multiple: true },
  input: { type: 'string', short: 'i' },
  'v0-compatible': { type: 'boolean' },
  format: { type: 'string' },
  unknowns: { type: 'string', multiple: true },
  mongo: { type: 'boolean' },
} as const;

export type RegoOption = keyof typeof REGO_OPTIONS;

export interface RegoArgs {
  data: string[];
  input?: string;
  v0Compatible: boolean;
  format: Format;
  unknowns?: string[];
  mongo: boolean;
}

export function regoArgs(
  sub: string,
  { values }: ParsedCommandArgs,
  allowed: readonly RegoOption[],
  defaultFormat: Format,
): RegoArgs {
  for (const name of Object.keys(REGO_OPTIONS) as RegoOption[]) {
    if (values[name] !== undefined && !allowed.includes(name))
      throw new UsageError(`rego ${sub} does not take --${name}`);
  }
  return {
    data: (values.data as string[] | undefined) ?? [],
    input: values.input as string | undefined,
    v0Compatible: values['v0-compatible'] === true,
    format: values.format === undefined ? defaultFormat : formatOf(values.format),
    unknowns: values.unknowns as string[] | undefined,
    mongo: values.mongo === true,
  };
}
