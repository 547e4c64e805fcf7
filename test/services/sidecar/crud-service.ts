/**
 * A stand-in for Mia-Platform's CRUD service over one MongoDB collection (a real local HTTP
 * server on a real database): `GET /?_q&_l` lists, `POST /` inserts, `DELETE /?_q` deletes and
 * answers the count, `PATCH /bulk` applies `[{filter, update}]` and answers the count. Every
 * request is recorded; `failNext(method)` answers the next one of that method with a 500.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Collection, Document, Filter } from 'mongodb';

export interface CrudCall {
  readonly method: string;
  readonly url: URL;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

export interface CrudService {
  /** The collection's base URL, with a trailing slash as Rönd's deployments write it. */
  readonly url: string;
  readonly calls: CrudCall[];
  failNext(method: string): void;
  close(): Promise<void>;
}

export async function startCrudService(collection: Collection): Promise<CrudService> {
  const calls: CrudCall[] = [];
  const failing = new Set<string>();
  const server = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req as AsyncIterable<Buffer>) body += chunk.toString('utf8');
    const url = new URL(req.url ?? '/', 'http://crud');
    const method = req.method ?? 'GET';
    calls.push({ method, url, headers: req.headers, body });
    const answer = (status: number, value: unknown) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
    if (failing.delete(method)) return answer(500, { statusCode: 500, error: 'Internal Server Error' });
    const query = JSON.parse(url.searchParams.get('_q') ?? '{}') as Filter<Document>;
    if (method === 'GET' && url.pathname === '/bindings/') {
      const limit = Number(url.searchParams.get('_l') ?? 25);
      return answer(
        200,
        await collection
          .find(query, { projection: { _id: 0 } })
          .limit(limit)
          .toArray(),
      );
    }
    if (method === 'POST' && url.pathname === '/bindings/') {
      const inserted = await collection.insertOne(JSON.parse(body) as Document);
      return answer(200, { _id: String(inserted.insertedId) });
    }
    if (method === 'DELETE' && url.pathname === '/bindings/')
      return answer(200, (await collection.deleteMany(query)).deletedCount);
    if (method === 'PATCH' && url.pathname === '/bindings/bulk') {
      let modified = 0;
      for (const { filter, update } of JSON.parse(body) as { filter: Document; update: Document }[])
        modified += (await collection.updateOne(filter, update)).modifiedCount;
      return answer(200, modified);
    }
    answer(404, { statusCode: 404, error: 'Not Found' });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/bindings/`,
    calls,
    failNext: (method) => void failing.add(method),
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
