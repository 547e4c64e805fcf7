import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  chooseBackends,
  describeBackends,
  dockerEndpoint,
  dockerReachable,
  MONGODB_IMAGE,
  REDPANDA_IMAGE,
} from './backends.ts';
import { test } from './suite.ts';

test('KAFKA_BROKERS and MONGODB_URL win over Docker; Docker over the stand-ins', () => {
  const env = { KAFKA_BROKERS: 'k:9092', MONGODB_URL: 'mongodb://m:27017' };
  assert.deepEqual(chooseBackends(env, true), {
    kafka: { kind: 'external', address: 'k:9092' },
    mongo: { kind: 'external', address: 'mongodb://m:27017' },
  });
  assert.deepEqual(chooseBackends({ MONGODB_URL: 'mongodb://m' }, true), {
    kafka: { kind: 'container', image: REDPANDA_IMAGE },
    mongo: { kind: 'external', address: 'mongodb://m' },
  });
  assert.deepEqual(chooseBackends({ KAFKA_BROKERS: '' }, false), {
    kafka: { kind: 'stand-in', name: 'Mokapi' },
    mongo: { kind: 'stand-in', name: 'jongodb' },
  });
  assert.equal(chooseBackends({}, true).mongo.kind, 'container');
});

test('the runner header names each choice', () => {
  assert.equal(
    describeBackends(chooseBackends({ KAFKA_BROKERS: 'k:9092' }, true)),
    `Kafka: k:9092 · MongoDB: ${MONGODB_IMAGE} container`,
  );
  assert.equal(
    describeBackends(chooseBackends({}, false)),
    'Kafka: Mokapi stand-in · MongoDB: jongodb stand-in',
  );
});

test('DOCKER_HOST: unix socket, tcp, the default socket, and an unusable value', () => {
  assert.deepEqual(dockerEndpoint({}), { socketPath: '/var/run/docker.sock' });
  assert.deepEqual(dockerEndpoint({ DOCKER_HOST: 'unix:///run/user/1000/docker.sock' }), {
    socketPath: '/run/user/1000/docker.sock',
  });
  assert.deepEqual(dockerEndpoint({ DOCKER_HOST: 'tcp://127.0.0.1:2375' }), {
    host: '127.0.0.1',
    port: 2375,
  });
  assert.equal(dockerEndpoint({ DOCKER_HOST: 'ssh://user@host' }), null);
});

test('Docker counts as reachable only when its API answers /_ping with 200', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'streamfold-docker-'));
  const socket = join(dir, 'docker.sock');
  let status = 200;
  const server = createServer((request, response) => {
    response.statusCode = request.url === '/_ping' ? status : 404;
    response.end('OK');
  });
  await new Promise<void>((done) => server.listen(socket, done));
  try {
    const env = { DOCKER_HOST: `unix://${socket}` };
    assert.equal(await dockerReachable(env), true);
    status = 500;
    assert.equal(await dockerReachable(env), false, 'an engine that answers an error is not usable');
  } finally {
    await new Promise((done) => server.close(done));
    rmSync(dir, { recursive: true, force: true });
  }
  assert.equal(await dockerReachable({ DOCKER_HOST: `unix://${socket}` }), false, 'no socket');
  assert.equal(await dockerReachable({ DOCKER_HOST: 'ssh://user@host' }), false, 'no usable endpoint');
});

test.run();
