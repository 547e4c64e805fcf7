/**
 * A loopback HTTP server that records every JSON request and answers with the status the test
 * sets (`failWith`), standing for a channel service (SMS, voice, push, mail, …) in tests; a GET
 * of one of `files`' paths answers that file, of another path 404 (a file service).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedCall {
  readonly method: string;
  readonly path: string;
  readonly body: unknown;
}

export interface HttpSink {
  readonly url: string;
  readonly calls: RecordedCall[];
  /** Answer the next `times` requests with `status` (then 200 again). */
  failWith(status: number, times: number): void;
  stop(): Promise<void>;
}

export async function startHttpSink(files: Readonly<Record<string, Buffer>> = {}): Promise<HttpSink> {
  const calls: RecordedCall[] = [];
  let failure = { status: 200, times: 0 };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      calls.push({
        method: req.method ?? '',
        path: req.url ?? '',
        body: text ? JSON.parse(text) : undefined,
      });
      if (req.method === 'GET') {
        const file = files[req.url ?? ''];
        res.writeHead(file ? 200 : 404).end(file ?? 'no such file');
        return;
      }
      const status = failure.times > 0 ? failure.status : 200;
      if (failure.times > 0) failure = { ...failure, times: failure.times - 1 };
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ status }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    failWith: (status, times) => {
      failure = { status, times };
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
