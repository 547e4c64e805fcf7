import { HttpError } from '../kit/index.ts';
import type { AuthClient } from './config.ts';

/**
 * The absolute URL a `redirectUri`/`redirect` parameter may send the browser to: a path of this
 * site, or a URL on the origin of the client's `redirectUrl`. Anything else (another origin,
 * `//host`, `javascript:`) is an open redirect and answers 400.
 */
export function allowedRedirect(client: AuthClient, target: string, parameter: string): string {
  const home = new URL(client.redirectUrl);
  const isPath = target.startsWith('/') && !target.startsWith('//') && !target.startsWith('/\\');
  let url: URL;
  try {
    url = new URL(target, home);
  } catch {
    throw new HttpError(400, `${parameter} is not a URL`);
  }
  if (!isPath && url.origin !== home.origin) {
    throw new HttpError(400, `${parameter} must be a path or a URL on ${home.origin}`);
  }
  return url.href;
}
