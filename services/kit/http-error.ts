import { STATUS_CODES } from 'node:http';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

/** One problem found in a request, e.g. a failed validation rule at a JSON pointer. */
export interface ErrorDetail {
  readonly path: string;
  readonly message: string;
}

/** The JSON body of every error answer of the project's services. */
export interface ErrorBody {
  readonly statusCode: number;
  /** The HTTP reason phrase, e.g. "Not Found". */
  readonly error: string;
  readonly message: string;
  readonly errors?: readonly ErrorDetail[];
}

/** Throw it from a handler or middleware to answer `status` with an {@link ErrorBody}. */
export class HttpError extends Error {
  readonly status: ContentfulStatusCode;
  readonly errors: readonly ErrorDetail[] | undefined;

  constructor(
    status: number,
    message: string,
    options?: { errors?: readonly ErrorDetail[]; cause?: unknown },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    if (!Number.isInteger(status) || status < 400 || status > 599) {
      throw new RangeError(`HttpError status must be an integer 400..599 (got ${status})`);
    }
    this.name = 'HttpError';
    this.status = status as ContentfulStatusCode;
    this.errors = options?.errors;
  }
}

export function reasonPhrase(status: number): string {
  return STATUS_CODES[status] ?? 'Error';
}

export function errorBody(status: number, message: string, errors?: readonly ErrorDetail[]): ErrorBody {
  return errors?.length
    ? { statusCode: status, error: reasonPhrase(status), message, errors }
    : { statusCode: status, error: reasonPhrase(status), message };
}
