/**
 * Which Kafka and MongoDB the tests use, in this order of precedence:
 * 1. `KAFKA_BROKERS` / `MONGODB_URL`: the cluster or server they name;
 * 2. a reachable Docker engine (`DOCKER_HOST`, else the default socket): a Redpanda and a MongoDB
 *    container (testcontainers), one per test file;
 * 3. otherwise the stand-ins started per test file: Mokapi and jongodb (design/test-infra.md).
 *
 * @example
 *   const backends = chooseBackends(process.env, await dockerReachable(process.env));
 *   backends.kafka.kind; // 'external' | 'container' | 'stand-in'
 */
import { request } from 'node:http';

export type Backend =
  | { readonly kind: 'external'; readonly address: string }
  | { readonly kind: 'container'; readonly image: string }
  | { readonly kind: 'stand-in'; readonly name: string };

export interface Backends {
  readonly kafka: Backend;
  readonly mongo: Backend;
}

export const REDPANDA_IMAGE = 'docker.redpanda.com/redpandadata/redpanda:v24.3.6';
export const MONGODB_IMAGE = 'mongo:8.0';

type Env = Readonly<Record<string, string | undefined>>;

export function chooseBackends(env: Env, docker: boolean): Backends {
  const pick = (external: string | undefined, image: string, standIn: string): Backend => {
    if (external) return { kind: 'external', address: external };
    if (docker) return { kind: 'container', image };
    return { kind: 'stand-in', name: standIn };
  };
  return {
    kafka: pick(env.KAFKA_BROKERS, REDPANDA_IMAGE, 'Mokapi'),
    mongo: pick(env.MONGODB_URL, MONGODB_IMAGE, 'jongodb'),
  };
}

/** One line for the runner's header, e.g. `Kafka: Mokapi stand-in · MongoDB: jongodb stand-in`. */
export function describeBackends(backends: Backends): string {
  const describe = (backend: Backend): string => {
    if (backend.kind === 'external') return backend.address;
    if (backend.kind === 'container') return `${backend.image} container`;
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
  chosen ??= dockerReachable(process.env).then((docker) => chooseBackends(process.env, docker));
  return chosen;
}
