// A stand-in for the protected service: echoes the row filter it received and two records.
import { createServer } from 'node:http';

createServer((req, res) => {
  const records = [
    { id: 1, owner: 'alice', secret: 'x' },
    { id: 2, owner: 'alice', secret: 'y' },
  ];
  res.writeHead(200, { 'content-type': 'application/json', 'x-acl-rows-seen': req.headers.acl_rows ?? '' });
  res.end(JSON.stringify(records));
}).listen(Number(process.env.PORT ?? 3000), '127.0.0.1');
