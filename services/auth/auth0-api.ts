import { createRemoteJWKSet, type JWTPayload, jwtVerify } from 'jose';
import { HttpError } from '../kit/index.ts';
import type { AuthClient } from './config.ts';
import type { TokenSet } from './store.ts';

/** The answer of Auth0's `POST /oauth/token`. */
interface Auth0TokenAnswer {
  access_token?: string;
  refresh_token?: string;
  id_token?: string;
  expires_in?: number;
}

export type TokenGrant =
  | { grant_type: 'authorization_code'; code: string; redirect_uri: string; code_verifier: string }
  | { grant_type: 'password'; username: string; password: string; scope: string; audience?: string }
  | {
      grant_type: 'http://auth0.com/oauth/grant-type/password-realm';
      username: string;
      password: string;
      realm: string;
      scope: string;
      audience?: string;
    }
  | { grant_type: 'refresh_token'; refresh_token: string };

/** How a rejection by Auth0 (its 4xx) is answered; other failures are 502. */
export interface Rejection {
  readonly status: number;
  readonly message: string;
}

const TIMEOUT_MS = 10_000;

/** Auth0's Authentication API for one tenant: token grants, userinfo, ID token verification. */
export class Auth0Api {
  private readonly keySets = new Map<string, ReturnType<typeof createRemoteJWKSet>>();

  /**
   * Runs a grant at `POST {auth0Url}/oauth/token` and returns the tokens, the ID token verified.
   * `nonce` is checked when the authorization request carried one.
   */
  async token(
    client: AuthClient,
    grant: TokenGrant,
    rejection: Rejection,
    nonce?: string,
  ): Promise<{ tokens: TokenSet; claims: JWTPayload }> {
    const response = await this.send(`${client.auth0Url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...grant, client_id: client.clientId, client_secret: client.clientSecret }),
    });
    if (response.status === 401) {
      // Auth0 answers 401 to the client's own credentials, not to the user's.
      await response.body?.cancel();
      throw new HttpError(502, 'Auth0 refused the client credentials (check clientId and clientSecret)');
    }
    if (response.status >= 400 && response.status < 500) {
      await response.body?.cancel();
      throw new HttpError(rejection.status, rejection.message);
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new HttpError(502, `Auth0 answered ${response.status} to the token request`);
    }
    const answer = (await response.json()) as Auth0TokenAnswer;
    // The reference's 3.0.1 message, kept word for word.
    if (!answer.access_token) throw new HttpError(502, 'access token is empty');
    if (!answer.id_token)
      throw new HttpError(502, 'Auth0 returned no ID token (is the openid scope granted?)');
    const claims = await this.verifyIdToken(client, answer.id_token, nonce);
    const tokens: TokenSet = {
      accessToken: answer.access_token,
      refreshToken:
        answer.refresh_token ?? (grant.grant_type === 'refresh_token' ? grant.refresh_token : undefined),
      idToken: answer.id_token,
      expireAt: new Date(Date.now() + (answer.expires_in ?? 86_400) * 1000).toISOString(),
    };
    return { tokens, claims };
  }

  /** The claims of an ID token whose signature (JWKS), issuer, audience, expiry and nonce hold. */
  async verifyIdToken(client: AuthClient, idToken: string, nonce?: string): Promise<JWTPayload> {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(idToken, this.keySet(client.auth0Url), {
        issuer: `${client.auth0Url}/`,
        audience: client.clientId,
        algorithms: [...client.signingAlgs],
      }));
    } catch (error) {
      throw new HttpError(401, `the ID token is not valid: ${(error as Error).message}`);
    }
    if (nonce !== undefined && payload.nonce !== nonce) {
      throw new HttpError(401, 'the ID token is not valid: nonce mismatch');
    }
    return payload;
  }

  /** Auth0's `GET /userinfo` for an access token we did not issue; undefined when Auth0 rejects it. */
  async userinfo(client: AuthClient, accessToken: string): Promise<Record<string, unknown> | undefined> {
    const response = await this.send(`${client.auth0Url}/userinfo`, {
      headers: { authorization: `Bearer ${accessToken}` },
    });
    if (response.status === 401 || response.status === 403) {
      await response.body?.cancel();
      return undefined;
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new HttpError(502, `Auth0 answered ${response.status} to userinfo`);
    }
    return (await response.json()) as Record<string, unknown>;
  }

  private keySet(auth0Url: string) {
    let keySet = this.keySets.get(auth0Url);
    if (!keySet) {
      keySet = createRemoteJWKSet(new URL(`${auth0Url}/.well-known/jwks.json`));
      this.keySets.set(auth0Url, keySet);
    }
    return keySet;
  }

  private async send(url: string, init: RequestInit): Promise<Response> {
    try {
      return await fetch(url, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) });
    } catch (error) {
      throw new HttpError(502, `Auth0 cannot be reached: ${(error as Error).message}`, { cause: error });
    }
  }
}
