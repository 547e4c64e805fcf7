import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { type AuthEnv, parseAuthEnv } from '../../../services/auth/env.ts';
import { createRedis, type RedisClient } from '../../../services/auth/redis.ts';
import { SessionStore } from '../../../services/auth/store.ts';
import { HttpError } from '../../../services/kit/index.ts';
import { freePorts, spawnLogged, stopProcess } from '../../support/process.ts';
import { type RedisFixture, startRedis } from '../../support/redis.ts';
import { standInLog } from '../../support/stand-in-log.ts';
import { test } from '../../support/suite.ts';

const dir = mkdtempSync(join(tmpdir(), 'auth-redis-'));

function env(variables: Record<string, string>): AuthEnv {
  return parseAuthEnv({ SERVICE_CONFIG_PATH: dir, SERVICE_CONFIG_FILE_NAME: 'c.json', ...variables });
}

/** Waits until `condition` holds; bounds that hold with both cores busy. */
async function eventually(
  what: string,
  condition: () => Promise<boolean>,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await condition().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`not within ${timeoutMs} ms: ${what}`);
}

const session = {
  clientType: 'web',
  claims: { sub: 'auth0|ada' },
  accessToken: 'at',
  refreshToken: 'rt',
  idToken: 'id',
  expireAt: new Date(Date.now() + 3_600_000).toISOString(),
};

/** A session written and read back through the service's client. */
async function roundTrip(client: RedisClient, sid: string): Promise<void> {
  await eventually('Redis ready', async () => client.status === 'ready');
  const store = new SessionStore(client, 60);
  await store.saveSession(sid, session);
  assert.deepEqual(await store.readSession(sid), session);
}

function quietly(client: RedisClient): RedisClient {
  client.on('error', () => {});
  return client;
}

test('normal mode, one host with an ACL user and password; a wrong password never becomes ready', async () => {
  const server = await startRedis({
    args: ['--user', 'default', 'off', '--user', 'app', 'on', '>s3cret', '~*', '&*', '+@all'],
  });
  const hosts = `127.0.0.1:${server.port}`;
  const good = quietly(
    createRedis(env({ REDIS_HOSTS: hosts, REDIS_USERNAME: 'app', REDIS_PASSWORD: 's3cret' })),
  );
  const bad = quietly(
    createRedis(env({ REDIS_HOSTS: hosts, REDIS_USERNAME: 'app', REDIS_PASSWORD: 'wrong' })),
  );
  try {
    await roundTrip(good, 'acl');
    await assert.rejects(new SessionStore(bad, 60).readSession('acl'), (error: Error) => {
      assert.ok(error instanceof HttpError);
      assert.equal(error.status, 503);
      return true;
    });
  } finally {
    good.disconnect();
    bad.disconnect();
    await server.stop();
  }
});

/** A self-signed certificate for 127.0.0.1, made once. */
function certificate(): { cert: string; key: string } {
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  if (!existsSync(cert)) {
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1'].concat([
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
      ]),
      { stdio: 'ignore' },
    );
  }
  return { cert, key };
}

const tlsArgs = (port: number, { cert, key }: { cert: string; key: string }) => [
  '--tls-port',
  String(port),
  '--tls-cert-file',
  cert,
  '--tls-key-file',
  key,
  '--tls-ca-cert-file',
  cert,
  '--tls-auth-clients',
  'no',
];

test('normal mode over TLS, the server certificate checked against REDIS_TLS_CA_CERT_PATH', async () => {
  const { cert } = certificate();
  const [tlsPort] = await freePorts(1);
  const server = await startRedis({ args: tlsArgs(tlsPort!, certificate()) });
  const hosts = `127.0.0.1:${tlsPort}`;
  const client = quietly(
    createRedis(env({ REDIS_HOSTS: hosts, REDIS_TLS: 'true', REDIS_TLS_CA_CERT_PATH: cert })),
  );
  const untrusting = quietly(createRedis(env({ REDIS_HOSTS: hosts, REDIS_TLS: 'true' })));
  try {
    await roundTrip(client, 'tls');
    await assert.rejects(new SessionStore(untrusting, 60).readSession('tls'), /unavailable/);
  } finally {
    client.disconnect();
    untrusting.disconnect();
    await server.stop();
  }
});

test('several hosts: a Redis Cluster of two nodes, each key on the node of its slot', async () => {
  const nodes: RedisFixture[] = [];
  const admin: Redis[] = [];
  let client: RedisClient | undefined;
  try {
    for (const name of ['a', 'b']) {
      nodes.push(
        await startRedis({
          args: ['--cluster-enabled', 'yes', '--cluster-config-file', join(dir, `nodes-${name}.conf`)],
        }),
      );
    }
    for (const node of nodes) admin.push(new Redis({ host: node.host, port: node.port }));
    await admin[0]!.call('CLUSTER', 'ADDSLOTSRANGE', '0', '8191');
    await admin[1]!.call('CLUSTER', 'ADDSLOTSRANGE', '8192', '16383');
    await admin[0]!.call('CLUSTER', 'MEET', '127.0.0.1', String(nodes[1]!.port));
    await eventually('the cluster is formed', async () =>
      (await Promise.all(admin.map((a) => a.call('CLUSTER', 'INFO')))).every((info) =>
        String(info).includes('cluster_state:ok'),
      ),
    );
    client = quietly(createRedis(env({ REDIS_HOSTS: nodes.map((n) => `127.0.0.1:${n.port}`).join(',') })));
    for (const sid of ['one', 'two', 'three', 'four']) await roundTrip(client, sid);
    const perNode = await Promise.all(admin.map((a) => a.dbsize()));
    assert.ok(
      perNode.every((count) => count > 0),
      `keys per node: ${perNode}`,
    );
  } finally {
    client?.disconnect();
    for (const a of admin) a.disconnect();
    for (const node of nodes) await node.stop();
  }
});

test('sentinel mode: the master found by name, and the service follows a failover to the replica', async () => {
  const master = await startRedis();
  // The replica saves the snapshot it syncs from: into the test's directory, not the cwd.
  const replica = await startRedis({ args: ['--replicaof', '127.0.0.1', String(master.port), '--dir', dir] });
  const [sentinelPort] = await freePorts(1);
  const conf = join(dir, 'sentinel.conf');
  writeFileSync(
    conf,
    [
      `port ${sentinelPort}`,
      'bind 127.0.0.1',
      `sentinel monitor main 127.0.0.1 ${master.port} 1`,
      'sentinel down-after-milliseconds main 300',
      'sentinel failover-timeout main 2000',
      '',
    ].join('\n'),
  );
  const sentinel = spawnLogged('redis-server', [conf, '--sentinel'], standInLog('redis-sentinel'));
  const masterAdmin = new Redis({ host: master.host, port: master.port });
  const client = quietly(
    createRedis(
      env({ REDIS_MODE: 'sentinel', REDIS_MASTER_NAME: 'main', REDIS_HOSTS: `127.0.0.1:${sentinelPort}` }),
    ),
  );
  try {
    await roundTrip(client, 'before');
    // The session reached the replica before the master goes.
    await eventually('replicated', async () => (await masterAdmin.call('WAIT', '1', '1000')) === 1);
    masterAdmin.disconnect();
    await master.stop();
    const store = new SessionStore(client, 60);
    await eventually(
      'failed over',
      async () =>
        (await store.readSession('before')) !== undefined &&
        ((await client.call('ROLE')) as unknown[])[0] === 'master',
    );
    await roundTrip(client, 'after');
    const replicaAdmin = new Redis({ host: replica.host, port: replica.port });
    assert.equal(((await replicaAdmin.call('ROLE')) as unknown[])[0], 'master');
    replicaAdmin.disconnect();
  } finally {
    client.disconnect();
    masterAdmin.disconnect();
    await stopProcess(sentinel);
    await replica.stop();
    await master.stop();
  }
});

test('sentinel mode over TLS: the sentinel and the master both spoken to with TLS', async () => {
  const certs = certificate();
  const [masterTls, sentinelTls] = await freePorts(2);
  const master = await startRedis({ args: tlsArgs(masterTls!, certs) });
  const conf = join(dir, 'sentinel-tls.conf');
  writeFileSync(
    conf,
    [
      'port 0',
      'bind 127.0.0.1',
      `tls-port ${sentinelTls}`,
      `tls-cert-file ${certs.cert}`,
      `tls-key-file ${certs.key}`,
      `tls-ca-cert-file ${certs.cert}`,
      'tls-auth-clients no',
      'tls-replication yes',
      `sentinel monitor secure 127.0.0.1 ${masterTls} 1`,
      '',
    ].join('\n'),
  );
  const sentinel = spawnLogged('redis-server', [conf, '--sentinel'], standInLog('redis-sentinel-tls'));
  const client = quietly(
    createRedis(
      env({
        REDIS_MODE: 'sentinel',
        REDIS_MASTER_NAME: 'secure',
        REDIS_HOSTS: `127.0.0.1:${sentinelTls}`,
        REDIS_TLS: 'true',
        REDIS_TLS_CA_CERT_PATH: certs.cert,
      }),
    ),
  );
  try {
    await roundTrip(client, 'sentinel-tls');
  } finally {
    client.disconnect();
    await stopProcess(sentinel);
    await master.stop();
  }
});

test.run();
