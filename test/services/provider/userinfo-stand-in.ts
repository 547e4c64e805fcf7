/**
 * A recording stand-in of the authentication service's `GET /userinfo` (contract: platform.md)
 * and `GET /-/ready`,
 * because services/auth is being built on another branch at the same time. Sessions are the `sid`
 * cookie or a bearer token; `mode` makes it fail like a broken dependency.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface UserinfoStandIn {
  readonly url: string;
  /** The headers of every `/userinfo` request received, in order. */
  readonly requests: IncomingHttpHeaders[];
  mode: 'ok' | 'error' | 'garbage';
  stop(): Promise<void>;
}

/** `sessions`: session token (sid value or bearer token) → the user's id and groups. */
export async function startUserinfoStandIn(
  sessions: Record<string, { id: string; groups: string[] }>,
): Promise<UserinfoStandIn> {
  const requests: IncomingHttpHeaders[] = [];
  const standIn: UserinfoStandIn = { url: '', requests, mode: 'ok', stop: async () => {} };
  const server = createServer((req, res) => {
    if (req.url === '/-/ready' && req.method === 'GET') {
      res.writeHead(standIn.mode === 'ok' ? 200 : 503).end();
      return;
    }
    if (req.url !== '/userinfo' || req.method !== 'GET') {
      res.writeHead(404).end();
      return;
    }
    requests.push(req.headers);
    if (standIn.mode === 'error') {
      res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"boom"}');
      return;
    }
    if (standIn.mode === 'garbage') {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<html>login</html>');
      return;
    }
    const sid = /(?:^|;\s*)sid=([^;]+)/.exec(req.headers.cookie ?? '')?.[1];
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const user = sessions[sid ?? bearer ?? ''];
    if (!user) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
      return;
    }
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ sub: user.id, userId: user.id, groups: user.groups, name: user.id }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  Object.assign(standIn, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
  return standIn;
}
