import { createHash, timingSafeEqual } from 'node:crypto';
import { HttpError } from '../kit/index.ts';
import type { RedisClient } from './redis.ts';

/** What `/authorize` remembers for the callback's `/oauth/token`. */
export interface PendingAuthorization {
  readonly clientType: string;
  readonly codeVerifier: string;
  readonly nonce: string;
}

export interface TokenSet {
  readonly accessToken: string;
  readonly refreshToken: string | undefined;
  readonly idToken: string;
  /** ISO 8601 instant the access token expires. */
  readonly expireAt: string;
}

/** A logged-in user: the tokens, and the claims of the verified ID token (what `/userinfo` answers). */
export interface Session extends TokenSet {
  readonly clientType: string;
  readonly claims: Readonly<Record<string, unknown>>;
}

const PREFIX = 'auth0-client:';
const ACTIVE = `${PREFIX}active-sessions`;
/** The reference's state lifetime since 3.2.1. */
export const STATE_TTL_SECONDS = 600;

const sha256 = (value: string) => createHash('sha256').update(value).digest('base64url');

/**
 * Sessions, states and tokens in Redis, one round trip per operation. Keys hold hashes of states
 * and access tokens (never the values, which would leak through `KEYS`/`MONITOR`); a Redis error
 * answers 503.
 */
export class SessionStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly sessionSeconds: number,
  ) {}

  async saveState(state: string, pending: PendingAuthorization): Promise<void> {
    const value = JSON.stringify({ state, ...pending });
    await this.call(() => this.redis.set(`${PREFIX}state:${sha256(state)}`, value, 'EX', STATE_TTL_SECONDS));
  }

  /** The pending authorization of `state`, removed so it serves once; undefined if unknown or expired. */
  async takeState(state: string): Promise<PendingAuthorization | undefined> {
    const raw = await this.call(() => this.redis.getdel(`${PREFIX}state:${sha256(state)}`));
    if (raw === null) return undefined;
    const { state: stored, ...pending } = JSON.parse(raw) as PendingAuthorization & { state: string };
    // The key is a hash of the state; compare the states themselves too, in constant time.
    const given = Buffer.from(state);
    const kept = Buffer.from(stored);
    return given.length === kept.length && timingSafeEqual(given, kept) ? pending : undefined;
  }

  async saveSession(sid: string, session: Session): Promise<void> {
    await this.call(() =>
      this.redis.set(`${PREFIX}session:${sid}`, JSON.stringify(session), 'EX', this.sessionSeconds),
    );
    await this.markActive(session, sid);
  }

  readSession(sid: string): Promise<Session | undefined> {
    return this.read(`${PREFIX}session:${sid}`);
  }

  async deleteSession(sid: string): Promise<void> {
    const raw = await this.call(() => this.redis.getdel(`${PREFIX}session:${sid}`));
    if (raw !== null) await this.markInactive(JSON.parse(raw) as Session, sid);
  }

  /** Keeps a token-mode login so `/userinfo` by bearer token needs no call to Auth0. */
  async saveTokenSession(session: Session): Promise<void> {
    const hash = sha256(session.accessToken);
    await this.call(() =>
      this.redis.set(`${PREFIX}token:${hash}`, JSON.stringify(session), 'EX', this.sessionSeconds),
    );
    await this.markActive(session, `token:${hash}`);
  }

  readTokenSession(accessToken: string): Promise<Session | undefined> {
    return this.read(`${PREFIX}token:${sha256(accessToken)}`);
  }

  async deleteTokenSession(accessToken: string): Promise<void> {
    const hash = sha256(accessToken);
    const raw = await this.call(() => this.redis.getdel(`${PREFIX}token:${hash}`));
    if (raw !== null) await this.markInactive(JSON.parse(raw) as Session, `token:${hash}`);
  }

  /** The ids of the users with a session alive now (`GET /users/active`, reference 3.3.0). */
  async activeUsers(): Promise<string[]> {
    await this.call(() => this.redis.zremrangebyscore(ACTIVE, '-inf', String(Date.now())));
    const members = await this.call(() => this.redis.zrange(ACTIVE, '0', '-1'));
    return [...new Set(members.map((member) => member.slice(0, member.lastIndexOf(' '))))];
  }

  // One sorted set of "<user id> <session>" scored by expiry: listing active users reads one key
  // instead of scanning every session (which a Redis Cluster would spread over its nodes).
  private async markActive(session: Session, id: string): Promise<void> {
    const expiry = Date.now() + this.sessionSeconds * 1000;
    await this.call(() => this.redis.zadd(ACTIVE, expiry, `${String(session.claims.sub)} ${id}`));
  }

  private async markInactive(session: Session, id: string): Promise<void> {
    await this.call(() => this.redis.zrem(ACTIVE, `${String(session.claims.sub)} ${id}`));
  }

  private async read(key: string): Promise<Session | undefined> {
    const raw = await this.call(() => this.redis.get(key));
    return raw === null ? undefined : (JSON.parse(raw) as Session);
  }

  private async call<T>(command: () => Promise<T>): Promise<T> {
    try {
      return await command();
    } catch (error) {
      throw new HttpError(503, 'the session store (Redis) is unavailable', { cause: error });
    }
  }
}
