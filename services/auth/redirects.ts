import { HttpError } from '../kit/index.ts';
import type { AuthClient } from './config.ts';

/**
 * The absolute URL a `redirectUri`/`redirect` parameter may send the browser to: a path of this
 * site, or a URL on the origin of the client's `redirectUrl`. Anything else (another origin,
 * `//host`, `javascript:`) is an open redirect and answers 400.
 *
 * The origin is checked on the URL as the browser will read it, never on the text given: the URL
 * parser drops tabs and newlines and reads `\` as `/`, so `/\t/evil.test` is `//evil.test`.
 */
export function allowedRedirect(client: AuthClient, target: string, parameter: string): string {
  const home = new URL(client.redirectUrl);
  let url: URL;
  try {
    url = new URL(target, home);
  } catch {
    throw new HttpError(400, `${parameter} is not a URL`);
  }
  if (url.origin !== home.origin) {
    throw new HttpError(400, `${parameter} must be a path or a URL on ${home.origin}`);
  }
  return url.href;
}
