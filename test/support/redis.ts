/**
 * Redis for tests: a `redis-server` of the machine's, started on a free loopback port with nothing
 * persisted, its log with the other stand-ins' (`stand-in-log.ts`). Extra arguments configure it
 * (ACL users, TLS, sentinel) as design/test-infra.md describes; the machine's own 6379 instance is
 * left alone.
 *
 * @example
 *   const redis = await startRedis({ args: ['--user', 'app', 'on', '>secret', '~*', '&*', '+@all'] });
 *   // ... connect to redis.host:redis.port ...
 *   await redis.stop();
 */
import { connect } from 'node:net';
import { freePorts, spawnLogged, stopProcess } from './process.ts';
import { standInLog, TAIL_LINES } from './stand-in-log.ts';

export interface RedisFixture {
  readonly host: string;
  readonly port: number;
  stop(): Promise<void>;
}

/** redis-server starts in milliseconds; the bound holds with both cores busy. */
const READY_TIMEOUT_MS = 30_000;

export async function startRedis(options: { args?: readonly string[] } = {}): Promise<RedisFixture> {
  const [port = 0] = await freePorts(1);
  const host = '127.0.0.1';
  const log = standInLog('redis');
  const child = spawnLogged(
    'redis-server',
    ['--port', String(port), '--bind', host, '--save', '', '--appendonly', 'no', ...(options.args ?? [])],
    log,
  );
  const stop = () => stopProcess(child);
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let lastAnswer = 'no answer';
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`redis-server exited with code ${child.exitCode}: ${log.tail(TAIL_LINES)}`);
    }
    lastAnswer = await ping(host, port).catch((error: Error) => error.message);
    // An ACL-protected default user answers NOAUTH: the server is up all the same.
    if (lastAnswer.startsWith('+PONG') || lastAnswer.startsWith('-NOAUTH')) return { host, port, stop };
    await new Promise((r) => setTimeout(r, 50));
  }
  await stop();
  throw new Error(`redis-server on ${host}:${port} not ready after ${READY_TIMEOUT_MS} ms: ${lastAnswer}`);
}

/** One `PING` in Redis' protocol on a fresh connection: the first line of the answer. */
function ping(host: string, port: number): Promise<string> {
  return new Promise((done, fail) => {
    const socket = connect({ host, port });
    let answer = '';
    socket.setTimeout(2000, () => socket.destroy(new Error('no answer within 2 s')));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString();
      if (!answer.includes('\r\n')) return;
      socket.end();
      done(answer.split('\r\n')[0]!);
    });
    socket.on('error', fail);
  });
}
