import { request } from 'undici';
import { PermanentError } from './retry.ts';

/** HTTP answers worth another try: the service is overloaded or restarting. */
const TRANSIENT_STATUS = new Set([408, 429, 500, 502, 503, 504]);

/**
 * POSTs a JSON body and answers the response text; a 3xx/4xx answer throws a
 * {@link PermanentError}, a transient one (408, 429, 5xx) a plain Error a retry may fix.
 */
export async function postJson(url: string, body: unknown, timeoutMs: number): Promise<string> {
  const answer = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });
  const text = await answer.body.text();
  if (answer.statusCode < 300) return text;
  const problem = `${url} answered ${answer.statusCode}: ${text.slice(0, 200)}`;
  throw TRANSIENT_STATUS.has(answer.statusCode) ? new Error(problem) : new PermanentError(problem);
}

/** `base` with a trailing slash, so that `new URL('send', base)` appends to its path. */
export function withSlash(url: string): string {
  return url.endsWith('/') ? url : `${url}/`;
}
