import { HttpError } from '../kit/index.ts';
import type { ManagementClient } from './config.ts';

export interface ManagementAnswer {
  readonly status: number;
  readonly body: unknown;
}

const TIMEOUT_MS = 15_000;
/** A token is renewed this long before Auth0 says it expires. */
const EARLY_RENEWAL_MS = 60_000;

/**
 * Auth0's Management API v2 with the management client's machine-to-machine token, cached until
 * shortly before it expires. Auth0's 4xx answers are passed on with Auth0's message; its 5xx and
 * network failures are 502.
 */
export class ManagementApi {
  private token: { value: string; renewAt: number } | undefined;
  private pending: Promise<string> | undefined;

  constructor(private readonly client: ManagementClient) {}

  async request(
    method: string,
    path: string,
    options: { query?: Record<string, string>; json?: unknown; form?: FormData } = {},
  ): Promise<ManagementAnswer> {
    const url = new URL(`${this.client.auth0Url}/api/v2${path}`);
    for (const [name, value] of Object.entries(options.query ?? {})) url.searchParams.set(name, value);
    const send = async () => {
      const headers: Record<string, string> = { authorization: `Bearer ${await this.accessToken()}` };
      let body: string | FormData | undefined = options.form;
      if (options.json !== undefined) {
        headers['content-type'] = 'application/json';
        body = JSON.stringify(options.json);
      }
      return this.fetch(url, { method, headers, body });
    };
    let response = await send();
    if (response.status === 401) {
      // Revoked or rotated early: one new token, one retry.
      await response.body?.cancel();
      this.token = undefined;
      response = await send();
    }
    const text = await response.text();
    const body: unknown = text === '' ? undefined : parseJson(text);
    if (response.status >= 500 || response.status === 401) {
      throw new HttpError(502, `Auth0 Management API answered ${response.status}`);
    }
    if (response.status >= 400) {
      const message = (body as { message?: unknown } | undefined)?.message;
      throw new HttpError(
        response.status,
        typeof message === 'string' ? message : `Auth0 answered ${response.status}`,
      );
    }
    return { status: response.status, body };
  }

  private accessToken(): Promise<string> {
    if (this.token && Date.now() < this.token.renewAt) return Promise.resolve(this.token.value);
    this.pending ??= this.fetchToken().finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  private async fetchToken(): Promise<string> {
    const response = await this.fetch(new URL(`${this.client.auth0Url}/oauth/token`), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        grant_type: 'client_credentials',
        client_id: this.client.clientId,
        client_secret: this.client.clientSecret,
        audience: `${this.client.auth0Url}/api/v2/`,
      }),
    });
    if (!response.ok) {
      await response.body?.cancel();
      throw new HttpError(502, `Auth0 refused the management client's token (${response.status})`);
    }
    const answer = (await response.json()) as { access_token?: string; expires_in?: number };
    if (!answer.access_token) throw new HttpError(502, 'access token is empty');
    const lifetimeMs = (answer.expires_in ?? 86_400) * 1000;
    this.token = {
      value: answer.access_token,
      renewAt: Date.now() + Math.max(0, lifetimeMs - EARLY_RENEWAL_MS),
    };
    return answer.access_token;
  }

  private async fetch(url: URL, init: RequestInit): Promise<Response> {
    try {
      return await fetch(url, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) });
    } catch (error) {
      throw new HttpError(502, `Auth0 cannot be reached: ${(error as Error).message}`, { cause: error });
    }
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
