import { type Logger, pino } from 'pino';
import { BatchedLogDestination, type LineSink } from './log-destination.ts';

export interface ServiceLoggerOptions {
  /** The service's name, in every line as `service`. */
  readonly service: string;
  /** pino level, usually `LOG_LEVEL`. */
  readonly level: string;
  /** Default `process.stdout`. */
  readonly sink?: LineSink;
}

/**
 * A service's pino logger: JSON lines with `service` on stdout, written once per turn of the
 * event loop ({@link BatchedLogDestination}).
 *
 * @example
 * const logger = createServiceLogger({ service: 'auth', level: env.LOG_LEVEL });
 */
export function createServiceLogger({ service, level, sink = process.stdout }: ServiceLoggerOptions): Logger {
  return pino({ level, base: { service } }, new BatchedLogDestination(sink));
}
