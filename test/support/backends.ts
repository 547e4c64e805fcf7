/**
 * Which Kafka and MongoDB the tests use, in this order of precedence:
 * 1. `KAFKA_BROKERS` / `MONGODB_URL`: the cluster or server they name;
 * 2. a reachable Docker engine (`DOCKER_HOST`, else the default socket): a Redpanda and a MongoDB
 *    container (testcontainers), one per test file;
 * 3. Kafka: Apache Kafka itself, run from Maven's jars (`local-kafka/`) where `java` and `mvn` are
 *    there: one broker for the whole test run, started by the runner and handed to every file in
 *    `STREAMFOLD_TEST_KAFKA` (a file run alone starts its own);
 * 4. the stand-ins started per test file: Mokapi (Kafka, the last resort) and jongodb (MongoDB).
 *
 * @example
 *   const backends = chooseBackends(process.env, { docker: false, java: true });
 *   backends.kafka.kind; // 'external' | 'container' | 'local' | 'stand-in'
 */
import { request } from 'node:http';
import { javaAndMavenPresent, pinnedKafkaVersion } from '../../local-kafka/classpath.ts';

export type Backend =
  | { readonly kind: 'external'; readonly address: string }
  | { readonly kind: 'container'; readonly image: string }
  /** `address`: the run's shared broker, when the runner started one. */
  | { readonly kind: 'local'; readonly version: string; readonly address?: string }
  | { readonly kind: 'stand-in'; readonly name: string };

export interface Backends {
  readonly kafka: Backend;
  readonly mongo: Backend;
}

export interface Available {
  /** A Docker engine answers. */
  readonly docker: boolean;
  /** `java` and `mvn` are on the PATH: Apache Kafka can be run locally. */
  readonly java: boolean;
}

export const REDPANDA_IMAGE = 'docker.redpanda.com/redpandadata/redpanda:v24.3.6';
export const MONGODB_IMAGE = 'mongo:8.0';
/** Set by the test runner for its files: the run's shared local broker. */
export const SHARED_KAFKA_ENV = 'STREAMFOLD_TEST_KAFKA';

type Env = Readonly<Record<string, string | undefined>>;

export function chooseBackends(env: Env, available: Available): Backends {
  const kafka = (): Backend => {
    if (env.KAFKA_BROKERS) return { kind: 'external', address: env.KAFKA_BROKERS };
    if (available.docker) return { kind: 'container', image: REDPANDA_IMAGE };
    const shared = env[SHARED_KAFKA_ENV];
    if (shared) return { kind: 'local', version: pinnedKafkaVersion(), address: shared };
    if (available.java) return { kind: 'local', version: pinnedKafkaVersion() };
    return { kind: 'stand-in', name: 'Mokapi' };
  };
  const mongo = (): Backend => {
    if (env.MONGODB_URL) return { kind: 'external', address: env.MONGODB_URL };
    if (available.docker) return { kind: 'container', image: MONGODB_IMAGE };
    return { kind: 'stand-in', name: 'jongodb' };
  };
  return { kafka: kafka(), mongo: mongo() };
}

/** One line for the runner's header, e.g. `Kafka: Apache Kafka 4.1.1 (local, 127.0.0.1:39217) · MongoDB: jongodb stand-in`. */
export function describeBackends(backends: Backends): string {
  const describe = (backend: Backend): string => {
    if (backend.kind === 'external') return backend.address;
    if (backend.kind === 'container') return `${backend.image} container`;
    if (backend.kind === 'local')
      return `Apache Kafka ${backend.version} (local${backend.address ? `, ${backend.address}` : ''})`;
    return `${backend.name} stand-in`;
  };
  return `Kafka: ${describe(backends.kafka)} · MongoDB: ${describe(backends.mongo)}`;
}

/** Where the Docker engine's API would be: `DOCKER_HOST` (unix or tcp), else the default socket. */
export function dockerEndpoint(env: Env): { socketPath: string } | { host: string; port: number } | null {
  const host = env.DOCKER_HOST;
  if (!host) return { socketPath: '/var/run/docker.sock' };
  if (host.startsWith('unix://')) return { socketPath: host.slice('unix://'.length) };
  const tcp = /^tcp:\/\/([^:/]+):(\d+)/.exec(host);
  return tcp ? { host: tcp[1]!, port: Number(tcp[2]) } : null;
}

/** True when a Docker engine answers its `/_ping` within `timeoutMs` (a client alone is not enough). */
export function dockerReachable(env: Env, timeoutMs = 2000): Promise<boolean> {
  const endpoint = dockerEndpoint(env);
  if (!endpoint) return Promise.resolve(false);
  return new Promise((done) => {
    const ping = request({ ...endpoint, path: '/_ping', method: 'GET', timeout: timeoutMs }, (response) => {
      response.resume();
      done(response.statusCode === 200);
    });
    ping.on('timeout', () => ping.destroy());
    ping.on('error', () => done(false));
    ping.end();
  });
}

let chosen: Promise<Backends> | undefined;

/** The backends of this process, probed once. */
export function backends(): Promise<Backends> {
  chosen ??= (async () => {
    const docker = await dockerReachable(process.env);
    return chooseBackends(process.env, { docker, java: javaAndMavenPresent() });
  })();
  return chosen;
}
