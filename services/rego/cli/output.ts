/** `opa`'s error shape, `{"errors":[{code,message,location}]}`, and JSON of Rego values. */

import { type CliIo, UsageError } from '../../kit/cli-command.ts';
import { RegoError, RowFilterError } from '../index.ts';
import { LoadError } from './load.ts';

export type Format = 'json' | 'pretty';

/** Reports an error of loading, compiling or evaluating; exit code 1. Other errors are bugs. */
export function reportError(error: unknown, format: Format, io: CliIo): number {
  if (error instanceof LoadError) {
    io.err(`streamfold rego: ${error.message}`);
    return 1;
  }
  if (!(error instanceof RegoError) && !(error instanceof RowFilterError)) throw error;
  const entry =
    error instanceof RegoError
      ? { code: error.code, message: error.detail, ...(error.location ? { location: error.location } : {}) }
      : { code: 'row_filter_error', message: error.message };
  if (format === 'json') io.out(JSON.stringify({ errors: [entry] }, null, 2));
  else io.out(`1 error occurred: ${error.message}`);
  return 1;
}

export function formatOf(value: string | boolean | (string | boolean)[] | undefined): Format {
  if (value === undefined || value === 'json') return 'json';
  if (value === 'pretty') return 'pretty';
  throw new UsageError(`--format must be json or pretty, got ${JSON.stringify(value)}`);
}
