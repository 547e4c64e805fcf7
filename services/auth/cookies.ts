import type { Context } from 'hono';
import type { AuthClient } from './config.ts';

export const SESSION_COOKIE = 'sid';

/** Secure unless the proxy in front says the browser spoke plain http. */
function isSecure(c: Context, originalProtocolHeader: string): boolean {
  return c.req.header(originalProtocolHeader)?.split(',')[0]?.trim().toLowerCase() !== 'http';
}

// Session ids are base64url (login-routes.ts); any other value is no session of ours. One regex
// instead of a parse of every cookie: this runs on each `/userinfo`, the busiest route.
const SESSION_ID_IN_COOKIES = new RegExp(
  `(?:^|;)[ \\t]*${SESSION_COOKIE}[ \\t]*=[ \\t]*("?)([\\w-]+)\\1[ \\t]*(?:;|$)`,
);

/** The first `sid` cookie holding a session id, else undefined. */
export function readSessionId(c: Context): string | undefined {
  const cookies = c.req.header('cookie');
  return cookies === undefined ? undefined : SESSION_ID_IN_COOKIES.exec(cookies)?.[2];
}

/** `sid`: HttpOnly, Secure (but over http), Path=/, Max-Age = the session duration, the client's SameSite. */
export function setSessionCookie(
  c: Context,
  sid: string,
  options: { client: AuthClient; maxAgeSeconds: number; originalProtocolHeader: string },
): void {
  const parts = [`${SESSION_COOKIE}=${sid}`, 'Path=/', `Max-Age=${options.maxAgeSeconds}`, 'HttpOnly'];
  if (isSecure(c, options.originalProtocolHeader)) parts.push('Secure');
  if (options.client.sameSite) parts.push(`SameSite=${options.client.sameSite}`);
  c.header('set-cookie', parts.join('; '), { append: true });
}

/** Deletes `sid` with an expiry in the past and no Max-Age (reference 2.0.0). */
export function clearSessionCookie(c: Context, originalProtocolHeader: string): void {
  const parts = [`${SESSION_COOKIE}=`, 'Path=/', 'Expires=Thu, 01 Jan 1970 00:00:00 GMT', 'HttpOnly'];
  if (isSecure(c, originalProtocolHeader)) parts.push('Secure');
  c.header('set-cookie', parts.join('; '), { append: true });
}
