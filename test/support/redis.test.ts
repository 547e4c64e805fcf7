import * as assert from 'node:assert/strict';
import { connect } from 'node:net';
import { startRedis } from './redis.ts';
import { test } from './suite.ts';

/** Sends RESP inline commands on one connection; resolves with the raw answer once `expect` is in it. */
function talk(port: number, commands: string, expect: RegExp): Promise<string> {
  return new Promise((done, fail) => {
    const socket = connect({ host: '127.0.0.1', port }, () => socket.write(commands));
    let answer = '';
    socket.setTimeout(10_000, () => socket.destroy(new Error(`no ${expect} in ${JSON.stringify(answer)}`)));
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString();
      if (expect.test(answer)) {
        socket.end();
        done(answer);
      }
    });
    socket.on('error', fail);
  });
}

test('a fresh redis-server on a free port answers, keeps nothing from another, and stops', async () => {
  const [a, b] = await Promise.all([startRedis(), startRedis()]);
  try {
    assert.notEqual(a.port, b.port);
    assert.notEqual(a.port, 6379, 'the machine instance is left alone');
    await talk(a.port, 'SET k 1\r\nGET k\r\n', /\$1\r\n1\r\n/);
    assert.match(await talk(b.port, 'GET k\r\n', /\r\n/), /^\$-1\r\n/, 'a key of the other instance');
  } finally {
    await Promise.all([a.stop(), b.stop()]);
  }
  await assert.rejects(talk(a.port, 'PING\r\n', /PONG/), /ECONNREFUSED/);
});

test('extra arguments configure it: an ACL user and a default user that must authenticate', async () => {
  const redis = await startRedis({
    args: ['--user', 'default', 'off', '--user', 'app', 'on', '>s3cret', '~*', '&*', '+@all'],
  });
  try {
    assert.match(await talk(redis.port, 'PING\r\n', /\r\n/), /^-NOAUTH/);
    assert.match(await talk(redis.port, 'AUTH app s3cret\r\nPING\r\n', /PONG/), /^\+OK\r\n\+PONG/);
  } finally {
    await redis.stop();
  }
});

test("a bad argument fails the start with redis-server's own words", async () => {
  await assert.rejects(
    startRedis({ args: ['--no-such-option', 'x'] }),
    /exited with code 1: [\s\S]*no-such-option/,
  );
});

test.run();
