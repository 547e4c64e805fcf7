import type { ErrorDetail } from '../../kit/index.ts';

export type ValidationResult =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly errors: readonly ErrorDetail[] };

/** Validates a parsed JSON body; `prepare()` loads what it needs ahead of the first request. */
export interface BodyValidator {
  prepare(): Promise<void>;
  validate(body: unknown): Promise<ValidationResult>;
}
