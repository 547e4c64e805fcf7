import * as assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { javaAndMavenPresent, pinnedKafkaVersion } from '../../local-kafka/classpath.ts';
import {
  chooseBackends,
  describeBackends,
  dockerEndpoint,
  dockerReachable,
  MONGODB_IMAGE,
  REDPANDA_IMAGE,
  SHARED_KAFKA_ENV,
} from './backends.ts';
import { test } from './suite.ts';

const none = { docker: false, java: false };
const KAFKA_VERSION = pinnedKafkaVersion();

test('KAFKA_BROKERS and MONGODB_URL win over Docker; Docker over the local broker and the stand-ins', () => {
  const env = { KAFKA_BROKERS: 'k:9092', MONGODB_URL: 'mongodb://m:27017' };
  assert.deepEqual(chooseBackends(env, { docker: true, java: true }), {
    kafka: { kind: 'external', address: 'k:9092' },
    mongo: { kind: 'external', address: 'mongodb://m:27017' },
  });
  assert.deepEqual(chooseBackends({ MONGODB_URL: 'mongodb://m' }, { docker: true, java: true }), {
    kafka: { kind: 'container', image: REDPANDA_IMAGE },
    mongo: { kind: 'external', address: 'mongodb://m' },
  });
  assert.deepEqual(chooseBackends({ KAFKA_BROKERS: '' }, none), {
    kafka: { kind: 'stand-in', name: 'Mokapi' },
    mongo: { kind: 'stand-in', name: 'jongodb' },
  });
  assert.equal(chooseBackends({}, { docker: true, java: false }).mongo.kind, 'container');
});

test('with java and mvn, Apache Kafka runs locally; Mokapi only without them', () => {
  assert.deepEqual(chooseBackends({}, { docker: false, java: true }).kafka, {
    kind: 'local',
    version: KAFKA_VERSION,
  });
  assert.deepEqual(chooseBackends({ [SHARED_KAFKA_ENV]: '127.0.0.1:1234' }, none).kafka, {
    kind: 'local',
    version: KAFKA_VERSION,
    address: '127.0.0.1:1234',
  });
  assert.equal(chooseBackends({}, none).kafka.kind, 'stand-in');
  assert.match(KAFKA_VERSION, /^4\.1\.\d+$/, 'the POM pins a 4.1.x broker');
});

test('the runner header names each choice', () => {
  assert.equal(
    describeBackends(chooseBackends({ KAFKA_BROKERS: 'k:9092' }, { docker: true, java: true })),
    `Kafka: k:9092 · MongoDB: ${MONGODB_IMAGE} container`,
  );
  assert.equal(
    describeBackends(chooseBackends({ [SHARED_KAFKA_ENV]: '127.0.0.1:1234' }, none)),
    `Kafka: Apache Kafka ${KAFKA_VERSION} (local, 127.0.0.1:1234) · MongoDB: jongodb stand-in`,
  );
  assert.equal(
    describeBackends(chooseBackends({}, none)),
    'Kafka: Mokapi stand-in · MongoDB: jongodb stand-in',
  );
});

test('java and mvn are looked up on the PATH', () => {
  const dir = mkdtempSync(join(tmpdir(), 'streamfold-path-'));
  try {
    for (const tool of ['java', 'mvn']) {
      writeFileSync(join(dir, tool), '#!/bin/sh\n');
      chmodSync(join(dir, tool), tool === 'mvn' ? 0o644 : 0o755);
    }
    assert.equal(javaAndMavenPresent(dir), false, 'mvn is not executable');
    chmodSync(join(dir, 'mvn'), 0o755);
    assert.equal(javaAndMavenPresent(`/nonexistent:${dir}`), true);
    assert.equal(javaAndMavenPresent(''), false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
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
