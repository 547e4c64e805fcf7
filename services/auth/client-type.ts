import type { MiddlewareHandler } from 'hono';
import { HttpError } from '../kit/index.ts';
import type { AuthClient, AuthConfig } from './config.ts';

export const CLIENT_TYPE_HEADER = 'client-type';

declare module 'hono' {
  interface ContextVariableMap {
    /** The client of the `client-type` header (or the configured `defaultClient`). */
    authClient: AuthClient;
  }
}

/** Picks the client per request; a missing or unknown client type answers 401 (as the reference). */
export function selectClient(config: AuthConfig): MiddlewareHandler {
  return async (c, next) => {
    const clientType = c.req.header(CLIENT_TYPE_HEADER) || config.defaultClient;
    const client = clientType === undefined ? undefined : config.clients.get(clientType);
    if (!client) {
      throw new HttpError(
        401,
        clientType === undefined ? `missing ${CLIENT_TYPE_HEADER} header` : 'unknown client type',
      );
    }
    c.set('authClient', client);
    return next();
  };
}
