/** Errors with OPA's codes; `location` is `file:line:col` when the error has a source position. */
export type ErrorCode =
  | 'rego_parse_error'
  | 'rego_compile_error'
  | 'rego_type_error'
  | 'rego_unsafe_var_error'
  | 'rego_recursion_error'
  | 'eval_conflict_error'
  | 'eval_type_error'
  | 'eval_builtin_error';

export interface Location {
  file: string;
  row: number;
  col: number;
}

export class RegoError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly location?: Location,
  ) {
    super(
      location
        ? `${location.file}:${location.row}:${location.col}: ${code}: ${message}`
        : `${code}: ${message}`,
    );
    this.name = 'RegoError';
    this.detail = message;
  }
  readonly detail: string;
}

/** Raised by builtins; swallowed (the call is undefined) unless strict builtin errors are on. */
export class BuiltinError extends RegoError {}

export function typeError(message: string): BuiltinError {
  return new BuiltinError('eval_type_error', message);
}

export function builtinError(message: string): BuiltinError {
  return new BuiltinError('eval_builtin_error', message);
}
