import { HttpError } from '../kit/index.ts';

/** The request header naming the Console version the caller speaks (e.g. `10.7.2`). */
export const CONSOLE_VERSION_HEADER = 'console-version';

const VERSION = /^(\d+)\.(\d+)(?:\.\d+)?$/;

/**
 * Whether the caller's Console version (the header, else `fallback`) has the 10.8 fields
 * (`capabilities`, `credentials.expirationDate`). A malformed header is a 400.
 */
export function speaks108(header: string | undefined, fallback: string): boolean {
  const match = VERSION.exec((header ?? fallback).trim());
  if (!match) throw new HttpError(400, `${CONSOLE_VERSION_HEADER}: expected a version like 10.8 or 10.7.2`);
  const [major, minor] = [Number(match[1]), Number(match[2])];
  return major > 10 || (major === 10 && minor >= 8);
}
