/**
 * A loopback HTTP server standing for the platform's timer service: `POST /schedule` records the
 * expiration and answers `{expirationId}`, `POST /abort` records the abort and answers 204; the
 * next calls can be made to fail. Expirations never fire by themselves: the test posts a recorded
 * payload where its `outputMode` says, as the timer would.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Expiration {
  readonly expirationId: string;
  readonly payload: unknown;
  readonly startDate: string;
  readonly expirationIntervalMs: number;
  readonly applicantService: string;
  readonly outputMode: {
    type: string;
    method: string;
    protocol: string;
    hostname: string;
    port?: number;
    path: string;
  };
}

export interface TimerStandIn {
  readonly url: string;
  readonly scheduled: Expiration[];
  readonly aborted: string[];
  /** Answer the next `times` requests with `status`. */
  failWith(status: number, times: number): void;
  /** Posts the expiration's payload where its output mode says, as the timer does when it expires. */
  expire(expiration: Expiration): Promise<Response>;
  stop(): Promise<void>;
}

export async function startTimerStandIn(): Promise<TimerStandIn> {
  const scheduled: Expiration[] = [];
  const aborted: string[] = [];
  let failure = { status: 200, times: 0 };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (failure.times > 0) {
        failure = { ...failure, times: failure.times - 1 };
        res.writeHead(failure.status).end('{"message":"unavailable"}');
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
      if (req.method === 'POST' && req.url === '/schedule') {
        const expirationId = `exp-${scheduled.length + 1}`;
        scheduled.push({ ...body, expirationId });
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ expirationId }));
      } else if (req.method === 'POST' && req.url === '/abort') {
        aborted.push(body.expirationId);
        res.writeHead(204).end();
      } else res.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    scheduled,
    aborted,
    failWith: (status, times) => {
      failure = { status, times };
    },
    expire: ({ outputMode: out, payload }) =>
      fetch(`${out.protocol}://${out.hostname}${out.port ? `:${out.port}` : ''}${out.path}`, {
        method: out.method.toUpperCase(),
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(payload),
      }),
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
