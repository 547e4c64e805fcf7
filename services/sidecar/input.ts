/** Rönd's policy `input`, built from the request as its Go code does. */
import type { InputUser } from './user-store.ts';

export interface RondInput {
  request: {
    method: string;
    path: string;
    headers?: Record<string, string[]>;
    query?: Record<string, string[]>;
    pathParams?: Record<string, string>;
    body?: unknown;
  };
  response: { body?: unknown };
  clientType?: string;
  user: InputUser;
}

/** Header names seen so far → canonical form; bounded, since clients choose the names. */
const canonicalNames = new Map<string, string>();
const MAX_CACHED_NAMES = 1024;

/**
 * Go's canonical header key (`x-api-key` → `X-Api-Key`): Rönd hands policies Go's `http.Header`,
 * so policies written for it index headers that way.
 */
export function canonicalHeaderKey(name: string): string {
  let canonical = canonicalNames.get(name);
  if (canonical === undefined) {
    canonical = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(name)
      ? name.toLowerCase().replace(/(^|-)([a-z])/g, (_, dash: string, c: string) => dash + c.toUpperCase())
      : name;
    if (canonicalNames.size >= MAX_CACHED_NAMES) canonicalNames.clear();
    canonicalNames.set(name, canonical);
  }
  return canonical;
}

/**
 * Node's raw header list (`[name, value, name, value, …]`) → canonical name → values, without
 * `Host`, which Go's server moves out of the header map.
 */
export function headersFromRaw(raw: readonly string[]): Record<string, string[]> {
  const headers: Record<string, string[]> = {};
  for (let i = 0; i < raw.length; i += 2) {
    const key = canonicalHeaderKey(raw[i] as string);
    if (key === 'Host') continue;
    const values = headers[key] ?? [];
    values.push(raw[i + 1] as string);
    headers[key] = values;
  }
  return headers;
}

export function queryFromUrl(url: URL): Record<string, string[]> {
  const query: Record<string, string[]> = {};
  for (const [key, value] of url.searchParams) query[key] = [...(query[key] ?? []), value];
  return query;
}

export interface InputParts {
  readonly method: string;
  readonly url: URL;
  readonly headers: Record<string, string[]>;
  readonly clientType: string;
  readonly pathParams: Record<string, string>;
  readonly body: unknown;
  readonly user: InputUser;
}

/** Empty members are left out, as Go's `omitempty` does, so `object.get` defaults behave alike. */
export function buildInput(parts: InputParts, responseBody?: unknown): RondInput {
  const request: RondInput['request'] = { method: parts.method, path: decodePath(parts.url.pathname) };
  if (Object.keys(parts.headers).length > 0) request.headers = parts.headers;
  const query = queryFromUrl(parts.url);
  if (Object.keys(query).length > 0) request.query = query;
  if (Object.keys(parts.pathParams).length > 0) request.pathParams = parts.pathParams;
  if (parts.body !== undefined) request.body = parts.body;
  const input: RondInput = { request, response: {}, user: parts.user };
  if (responseBody !== undefined) input.response.body = responseBody;
  if (parts.clientType !== '') input.clientType = parts.clientType;
  return input;
}

/** Go's `URL.Path` is the decoded path. */
function decodePath(pathname: string): string {
  try {
    return decodeURIComponent(pathname);
  } catch {
    return pathname;
  }
}
