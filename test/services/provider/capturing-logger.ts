/** A debug-level pino logger whose lines are appended to `lines`, for the suites to grep for secrets. */
import { Writable } from 'node:stream';
import pino, { type Logger } from 'pino';

export function capturingLogger(lines: string[]): Logger {
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return pino({ level: 'debug' }, sink);
}
