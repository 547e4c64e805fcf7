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

const unavailable = (cause: unknown) =>
  new HttpError(503, 'the session store (Redis) is unavailable', { cause });

/** What `/userinfo` needs of a session, read in one round trip without parsing the session. */
export interface StoredUser {
  /** The body of `/userinfo`, the exact JSON text to answer. */
  readonly body: string;
  /** When the access token expires, epoch milliseconds. */
  readonly expiresAt: number;
}

/**
 * The fields of a session's Redis hash. `user` is "<the access token's expiry, epoch ms> <the
 * `/userinfo` body>"; `expireAt` is only in sessions saved before the expiry joined `user`.
 */
type SessionFields = 'session' | 'user' | 'expireAt' | 'sub';

/**
 * Sessions, states and tokens in Redis. Keys hold hashes of states and access tokens (never the
 * values, which would leak through `KEYS`/`MONITOR`); a Redis error answers 503.
 *
 * A session is a Redis hash: the session as JSON, the `/userinfo` body as the JSON text to answer
 * (made once, when the session is saved) behind the access token's expiry, and the user id.
 * `/userinfo`, the busiest route, reads the body and the expiry with one `HGET` and answers the
 * text as is: no JSON parse, no re-serialisation.
 */
export class SessionStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly sessionSeconds: number,
    /** The `/userinfo` body of a session's claims. */
    private readonly userBody: (claims: Session['claims']) => string = JSON.stringify,
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

  saveSession(sid: string, session: Session): Promise<void> {
    return this.save(`session:${sid}`, session);
  }

  readSession(sid: string): Promise<Session | undefined> {
    return this.read(`session:${sid}`);
  }

  readSessionUser(sid: string): Promise<StoredUser | undefined> {
    return this.readUser(`session:${sid}`);
  }

  deleteSession(sid: string): Promise<void> {
    return this.delete(`session:${sid}`);
  }

  /** Keeps a token-mode login so `/userinfo` by bearer token needs no call to Auth0. */
  saveTokenSession(session: Session): Promise<void> {
    return this.save(`token:${sha256(session.accessToken)}`, session);
  }

  readTokenSession(accessToken: string): Promise<Session | undefined> {
    return this.read(`token:${sha256(accessToken)}`);
  }

  readTokenUser(accessToken: string): Promise<StoredUser | undefined> {
    return this.readUser(`token:${sha256(accessToken)}`);
  }

  deleteTokenSession(accessToken: string): Promise<void> {
    return this.delete(`token:${sha256(accessToken)}`);
  }

  /** The ids of the users with a session alive now (`GET /users/active`, reference 3.3.0). */
  async activeUsers(): Promise<string[]> {
    await this.call(() => this.redis.zremrangebyscore(ACTIVE, '-inf', String(Date.now())));
    const members = await this.call(() => this.redis.zrange(ACTIVE, '0', '-1'));
    return [...new Set(members.map((member) => member.slice(0, member.lastIndexOf(' '))))];
  }

  private async save(id: string, session: Session): Promise<void> {
    const sub = String(session.claims.sub);
    const fields: Record<Exclude<SessionFields, 'expireAt'>, string> = {
      session: JSON.stringify(session),
      user: `${Date.parse(session.expireAt)} ${this.userBody(session.claims)}`,
      sub,
    };
    const key = PREFIX + id;
    await this.transaction(this.redis.multi().hset(key, fields).expire(key, this.sessionSeconds));
    // One sorted set of "<user id> <session>" scored by expiry: listing active users reads one key
    // instead of scanning every session (which a Redis Cluster would spread over its nodes).
    const expiry = Date.now() + this.sessionSeconds * 1000;
    await this.call(() => this.redis.zadd(ACTIVE, expiry, `${sub} ${id}`));
  }

  private async read(id: string): Promise<Session | undefined> {
    const raw = await this.call(() => this.redis.hget(PREFIX + id, 'session' satisfies SessionFields));
    return raw === null ? undefined : (JSON.parse(raw) as Session);
  }

  private readUser(id: string): Promise<StoredUser | undefined> {
    const key = PREFIX + id;
    return this.call(() => this.redis.hget(key, 'user' satisfies SessionFields)).then((user) => {
      if (user === null) return undefined;
      // A session saved before the expiry joined `user`: the body alone, the expiry apart.
      if (user.startsWith('{')) return this.readUserApart(key, user);
      const space = user.indexOf(' ');
      return { body: user.slice(space + 1), expiresAt: Number(user.slice(0, space)) };
    });
  }

  private async readUserApart(key: string, body: string): Promise<StoredUser> {
    const expiresAt = await this.call(() => this.redis.hget(key, 'expireAt' satisfies SessionFields));
    return { body, expiresAt: Number(expiresAt) };
  }

  /** Deletes a session and its entry among the active ones (read and deleted atomically). */
  private async delete(id: string): Promise<void> {
    const key = PREFIX + id;
    const [sub] = await this.transaction(
      this.redis
        .multi()
        .hget(key, 'sub' satisfies SessionFields)
        .del(key),
    );
    if (typeof sub === 'string') await this.call(() => this.redis.zrem(ACTIVE, `${sub} ${id}`));
  }

  /** Runs a MULTI block; any failed command answers 503 like a failed call. */
  private async transaction(block: ReturnType<RedisClient['multi']>): Promise<unknown[]> {
    const results = await this.call(() => block.exec());
    if (results === null) throw unavailable(undefined);
    return results.map(([error, value]) => {
      if (error) throw unavailable(error);
      return value;
    });
  }

  /** One command; its failure (or a throw, e.g. a closed client) becomes the 503. */
  private call<T>(command: () => Promise<T>): Promise<T> {
    const failed = (error: unknown) => Promise.reject(unavailable(error));
    try {
      return command().catch(failed);
    } catch (error) {
      return failed(error);
    }
  }
}
