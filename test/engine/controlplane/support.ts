/**
 * A real grpc-js control plane server for tests, on a free loopback port: records what engines
 * send (with receive times), sends desired states (or raw bytes), and can stop and restart on
 * the same port.
 */
import { Writable } from 'node:stream';
import * as grpc from '@grpc/grpc-js';
import pino, { type Logger } from 'pino';
import {
  controlPlaneService,
  type DesiredState,
  type EngineMessage,
} from '../../../engine/controlplane/index.ts';

export interface Received {
  readonly at: number;
  readonly message: EngineMessage & { kind: 'feedback' | 'ack' | 'graph' };
}

export interface TestServer {
  readonly address: string;
  readonly port: number;
  readonly received: Received[];
  readonly engineIds: string[];
  /** Streams currently open. */
  connections(): number;
  /** Sends to every open stream; a Buffer is sent as is (not protobuf-encoded). */
  send(message: DesiredState | Buffer): void;
  stop(): Promise<void>;
  /** Starts again on the same port, keeping what was received. */
  restart(): Promise<void>;
}

export async function startTestServer(port = 0): Promise<TestServer> {
  const received: Received[] = [];
  const engineIds: string[] = [];
  const calls = new Set<grpc.ServerDuplexStream<EngineMessage, DesiredState | Buffer>>();
  const service = controlPlaneService();
  const connect = service.Connect as grpc.MethodDefinition<EngineMessage, DesiredState>;
  const rawCapable: grpc.ServiceDefinition = {
    ...service,
    Connect: {
      ...connect,
      responseSerialize: (value: DesiredState | Buffer) =>
        Buffer.isBuffer(value) ? value : connect.responseSerialize(value),
    },
  };

  let server: grpc.Server;
  const listen = async (wanted: number) => {
    server = new grpc.Server();
    server.addService(rawCapable, {
      Connect(call: grpc.ServerDuplexStream<EngineMessage, DesiredState | Buffer>) {
        calls.add(call);
        engineIds.push(String(call.metadata.get('streamfold-engine-id')[0]));
        call.on('data', (message: Received['message']) => received.push({ at: Date.now(), message }));
        const gone = () => calls.delete(call);
        call.on('end', () => {
          gone();
          call.end();
        });
        call.on('error', gone);
        call.on('cancelled', gone);
      },
    });
    return new Promise<number>((resolve, reject) =>
      server.bindAsync(`127.0.0.1:${wanted}`, grpc.ServerCredentials.createInsecure(), (error, bound) =>
        error ? reject(error) : resolve(bound),
      ),
    );
  };
  const bound = await listen(port);
  return {
    address: `127.0.0.1:${bound}`,
    port: bound,
    received,
    engineIds,
    connections: () => calls.size,
    send(message) {
      for (const call of calls) call.write(message);
    },
    async stop() {
      calls.clear();
      server.forceShutdown();
    },
    async restart() {
      await listen(bound);
    },
  };
}

/** A port nothing listens on (bound, then released). */
export async function freePort(): Promise<number> {
  const server = await startTestServer();
  await server.stop();
  return server.port;
}

export function feedbacks(server: TestServer) {
  return server.received.flatMap((r) =>
    r.message.kind === 'feedback' ? [{ at: r.at, event: r.message.feedback }] : [],
  );
}

export function acks(server: TestServer) {
  return server.received.flatMap((r) => (r.message.kind === 'ack' ? [r.message.ack] : []));
}

/** A pino logger whose JSON lines are kept in `lines`. */
export function capturingLogger(): { logger: Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: pino({ level: 'debug' }, sink), lines };
}

/**
 * Polls `check` every 10 ms until it is truthy; fails after `timeoutMs` with `what`. The default
 * bound holds with both cores busy (the suite runs two files at once).
 */
export async function waitFor<T>(
  what: string,
  check: () => T | Promise<T>,
  timeoutMs = 20_000,
): Promise<Exclude<T, false | 0 | '' | null | undefined>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as Exclude<T, false | 0 | '' | null | undefined>;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(10);
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
