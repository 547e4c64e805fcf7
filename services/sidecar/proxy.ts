/**
 * Forwarding to the protected service with a pooled undici client: method, path, query, headers
 * and body unchanged except hop-by-hop headers (plus X-Forwarded-*, as Go's reverse proxy adds),
 * bodies streamed both ways.
 */
import type { IncomingHttpHeaders, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { errors, Pool } from 'undici';

/** RFC 9110 §7.6.1 and the ones Go's reverse proxy drops too. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
]);

export interface UpstreamRequest {
  readonly method: string;
  /** Escaped path and query, as received. */
  readonly pathAndQuery: string;
  readonly rawHeaders: readonly string[];
  /** Extra or replaced headers (lower-case names), e.g. the row filter; null removes one. */
  readonly setHeaders: Record<string, string | null>;
  readonly body: Buffer | Readable | null;
  readonly remoteAddress: string | undefined;
  readonly host: string | undefined;
}

export interface UpstreamResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Readable & { text(): Promise<string>; dump(): Promise<void> };
}

/** `message` goes into the answer; `reason` (the socket error) only into the log. */
export class UpstreamError extends Error {
  override readonly name = 'UpstreamError';
  constructor(
    readonly status: 502 | 504,
    message: string,
    readonly reason: string,
  ) {
    super(message);
  }
}

export class Upstream {
  private readonly pool: Pool;

  constructor(host: string, timeoutMs: number) {
    this.pool = new Pool(`http://${host}`, {
      connections: 128,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      keepAliveTimeout: 4_000,
    });
  }

  async send(req: UpstreamRequest): Promise<UpstreamResponse> {
    try {
      const response = await this.pool.request({
        method: req.method as 'GET',
        path: req.pathAndQuery,
        headers: forwardHeaders(req),
        body: req.body,
      });
      return { status: response.statusCode, headers: response.headers, body: response.body };
    } catch (err) {
      if (err instanceof errors.HeadersTimeoutError || err instanceof errors.BodyTimeoutError)
        throw new UpstreamError(504, 'the protected service did not answer in time', (err as Error).message);
      throw new UpstreamError(502, 'the protected service cannot be reached', (err as Error).message);
    }
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

function forwardHeaders(req: UpstreamRequest): string[] {
  let out: string[] = [];
  const raw = req.rawHeaders;
  // `Connection: x, y` names more hop-by-hop headers for this message (rare: one pass, then a filter).
  let named: Set<string> | undefined;
  let forwardedFor: string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const name = (raw[i] as string).toLowerCase();
    const value = raw[i + 1] as string;
    if (name === 'connection')
      for (const token of value.split(',')) {
        const other = token.trim().toLowerCase();
        if (HOP_BY_HOP.has(other)) continue;
        named ??= new Set();
        named.add(other);
      }
    if (HOP_BY_HOP.has(name) || name in req.setHeaders) continue;
    if (name === 'x-forwarded-for') {
      forwardedFor = forwardedFor ? `${forwardedFor}, ${value}` : value;
      continue;
    }
    if (name === 'x-forwarded-host' || name === 'x-forwarded-proto') continue;
    out.push(raw[i] as string, value);
  }
  if (named) out = withoutNamed(out, named);
  if (req.remoteAddress)
    out.push('x-forwarded-for', forwardedFor ? `${forwardedFor}, ${req.remoteAddress}` : req.remoteAddress);
  if (req.host) out.push('x-forwarded-host', req.host);
  out.push('x-forwarded-proto', 'http');
  for (const [name, value] of Object.entries(req.setHeaders)) if (value !== null) out.push(name, value);
  return out;
}

function withoutNamed(headers: string[], named: ReadonlySet<string>): string[] {
  const kept: string[] = [];
  for (let i = 0; i < headers.length; i += 2)
    if (!named.has((headers[i] as string).toLowerCase()))
      kept.push(headers[i] as string, headers[i + 1] as string);
  return kept;
}

/** The upstream's headers for our answer: hop-by-hop ones (and `drop`) left out, repeated ones kept. */
function keptHeaders(headers: IncomingHttpHeaders, drop: readonly string[]): OutgoingHttpHeaders {
  const kept: OutgoingHttpHeaders = {};
  for (const name in headers) {
    const value = headers[name];
    if (value !== undefined && !HOP_BY_HOP.has(name) && !drop.includes(name)) kept[name] = value;
  }
  return kept;
}

/** The upstream's headers as a web `Headers`, for an answer the sidecar builds (response filter). */
export function responseHeaders(headers: IncomingHttpHeaders, drop: readonly string[] = []): Headers {
  const out = new Headers();
  for (const [name, value] of Object.entries(keptHeaders(headers, drop)))
    if (Array.isArray(value)) for (const v of value) out.append(name, v);
    else out.set(name, String(value));
  return out;
}

/**
 * Relays the upstream's answer straight onto Node's response: status, headers and the body piped
 * with backpressure (a client that goes away aborts the upstream body). Writing to Node's stream
 * directly spares a web `ReadableStream` per answer, the largest cost of the allow path.
 */
export function relay(upstream: UpstreamResponse, outgoing: ServerResponse, withBody: boolean): void {
  outgoing.writeHead(upstream.status, keptHeaders(upstream.headers, []));
  if (!withBody) {
    outgoing.end();
    // Drained, not destroyed: a destroyed undici body emits an error nobody listens to.
    upstream.body.dump().catch(() => {});
    return;
  }
  // `pipe` rather than `pipeline`: the latter costs an AbortController and a DOMException per
  // answer. Either side failing (the client or the upstream gone mid-body) ends the other; the
  // status is already sent.
  const body = upstream.body;
  body.on('error', () => outgoing.destroy());
  outgoing.on('close', () => {
    if (!body.readableEnded) body.destroy();
  });
  body.pipe(outgoing);
}
