import type { AuthConfig } from './config.ts';

/** The body of `/userinfo` and `/users/me` (design/platform.md). */
export interface UserInfo {
  readonly sub: string;
  readonly userId: string;
  readonly groups: readonly string[];
  readonly [claim: string]: unknown;
}

// Claims of the ID token that describe the token, not the user.
const TOKEN_CLAIMS = new Set(['iss', 'aud', 'exp', 'iat', 'nbf', 'nonce', 'azp', 'at_hash', 'sid', 'jti']);

/**
 * The user from the claims of an ID token or of Auth0's userinfo: custom claims of the configured
 * namespaces come out of their namespace (an object claim `ns` is spread, a claim `ns/name` becomes
 * `name`), so `groups` set by an Auth0 Action from `app_metadata` is at the top.
 */
export function userInfoFromClaims(
  claims: Readonly<Record<string, unknown>>,
  namespaces: AuthConfig['customClaimsNamespaces'],
): UserInfo {
  const user: Record<string, unknown> = {};
  const custom: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(claims)) {
    if (TOKEN_CLAIMS.has(name)) continue;
    const namespace = namespaces.find((ns) => name === ns || name.startsWith(`${ns.replace(/\/$/, '')}/`));
    if (namespace === undefined) user[name] = value;
    else if (name === namespace) {
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) Object.assign(custom, value);
    } else custom[name.slice(namespace.replace(/\/$/, '').length + 1)] = value;
  }
  const sub = String(claims.sub ?? '');
  const merged = { ...user, ...custom };
  const groups = Array.isArray(merged.groups) ? merged.groups.filter((g) => typeof g === 'string') : [];
  return { ...merged, sub, userId: sub, groups };
}
