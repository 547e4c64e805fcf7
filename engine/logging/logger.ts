import { type Logger, pino } from 'pino';

/**
 * The engine's structured logger: JSON lines on stderr, so stdout stays free for output
 * (`run --embedded --output -`). Level from the argument, else `LOG_LEVEL`, else `info`.
 */
export function createLogger(level?: string): Logger {
  return pino({ name: 'streamfold', level: level ?? process.env.LOG_LEVEL ?? 'info' }, pino.destination(2));
}
