import { HttpError } from '../kit/index.ts';

/**
 * Thrown by an adapter (or a key/value function) to answer the client with `status` (a 4xx or
 * 5xx) and `message` as `{statusCode, error, message}`.
 */
export class BadRequestError extends HttpError {
  constructor(status: number, message: string) {
    super(status, message);
    this.name = 'BadRequestError';
  }
}
