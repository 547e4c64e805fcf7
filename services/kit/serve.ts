import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { createAdaptorServer } from '@hono/node-server';
import type { Hono } from 'hono';
import type { Logger } from 'pino';
import { z } from 'zod';
import { answerClientErrors } from './client-error.ts';
import { envInteger, parseEnv } from './env.ts';
import { errorBody } from './http-error.ts';

export type ShutdownHook = () => void | Promise<void>;

export interface ServeOptions {
  /** Default `0.0.0.0`. */
  readonly hostname?: string;
  /** Default 0: any free port (read it back from the result). */
  readonly port?: number;
  readonly logger?: Logger;
  /** Run in order after the last in-flight request finished, e.g. flush a producer. */
  readonly onShutdown?: ShutdownHook | readonly ShutdownHook[];
  /** Seconds `/-/ready` answers 503 before the listener closes. Default: `DELAY_SHUTDOWN_SECONDS` or 0. */
  readonly delayShutdownSeconds?: number;
  /** In-flight requests still open after this are cut. Default 30 000. */
  readonly shutdownTimeoutMs?: number;
  /** Shut down and exit on SIGTERM/SIGINT. Default true. */
  readonly handleSignals?: boolean;
}

export interface RunningServer {
  readonly port: number;
  /** True from the moment shutdown began. */
  readonly draining: boolean;
  /** Graceful shutdown without exiting the process; idempotent. */
  close(): Promise<void>;
}

const READY_PATH = '/-/ready';
const HEADERS_TIMEOUT_MS = 10_000;
const MAX_REQUESTS_PER_SOCKET = 100;

/**
 * Serves a Hono app on Node and owns its graceful shutdown: on SIGTERM/SIGINT (or `close()`)
 * `/-/ready` turns 503 so the load balancer stops routing, then after `DELAY_SHUTDOWN_SECONDS`
 * the listener stops accepting, in-flight requests finish, the `onShutdown` hooks run and, for a
 * signal, the process exits.
 */
export async function serve(app: Hono, options: ServeOptions = {}): Promise<RunningServer> {
  const { logger, hostname = '0.0.0.0', port = 0, shutdownTimeoutMs = 30_000 } = options;
  const delaySeconds = options.delayShutdownSeconds ?? readDelayShutdownSeconds();
  const hooks = options.onShutdown === undefined ? [] : [options.onShutdown].flat();
  let draining = false;

  // Readiness is answered here rather than by the app: only the server knows it is draining.
  const server = createAdaptorServer({
    serverOptions: {
      // A client sending its headers byte by byte gets a 408 after this, not Node's 60 s; the
      // timeouts are checked every second instead of every 30 s.
      headersTimeout: HEADERS_TIMEOUT_MS,
      connectionsCheckingInterval: 1000,
    },
    fetch: (request, env) =>
      draining && request.method === 'GET' && new URL(request.url).pathname === READY_PATH
        ? Response.json({ ...errorBody(503, 'shutting down'), status: 'KO' }, { status: 503 })
        : app.fetch(request, env),
  }) as Server;
  answerClientErrors(server);
  // A client pipelining thousands of requests on one connection (and not reading the answers)
  // would have them all run at once, delaying every other client: past this many, Node answers
  // 503 without running the app, and the connection closes after its answer.
  server.maxRequestsPerSocket = MAX_REQUESTS_PER_SOCKET;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, hostname, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const boundPort = (server.address() as AddressInfo).port;
  logger?.info({ hostname, port: boundPort }, 'listening');

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= shutdown();
    return closing;
  };

  async function shutdown(): Promise<void> {
    draining = true;
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
    logger?.info({ delaySeconds }, 'shutting down');
    if (delaySeconds > 0) await sleep(delaySeconds * 1000);
    await stopListening(server, shutdownTimeoutMs);
    for (const hook of hooks) {
      try {
        await hook();
      } catch (err) {
        logger?.error({ err }, 'shutdown hook failed');
      }
    }
    logger?.info('stopped');
  }

  function onSignal(signal: NodeJS.Signals): void {
    logger?.info({ signal }, 'signal received');
    close().then(
      () => process.exit(0),
      (err: unknown) => {
        logger?.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  }

  if (options.handleSignals ?? true) {
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
  }

  return {
    port: boundPort,
    get draining() {
      return draining;
    },
    close,
  };
}

/** Stops accepting, lets in-flight requests finish, cuts what is left after `timeoutMs`. */
function stopListening(server: Server, timeoutMs: number): Promise<void> {
  return new Promise((resolve) => {
    const cut = setTimeout(() => server.closeAllConnections(), timeoutMs);
    server.close(() => {
      clearTimeout(cut);
      resolve();
    });
    // Keep-alive sockets with no request in flight would otherwise hold close() open.
    server.closeIdleConnections();
  });
}

function readDelayShutdownSeconds(): number {
  return parseEnv(z.object({ DELAY_SHUTDOWN_SECONDS: envInteger(0, 3600).default(0) }))
    .DELAY_SHUTDOWN_SECONDS;
}

/**
 * For a service run by `streamfold service`: waits for SIGTERM or SIGINT, then `close()`s it
 * (graceful shutdown) and resolves with the process exit code: 0, or 1 when the shutdown failed.
 * When `failed` settles first (the service cannot go on, e.g. its consumer died), it shuts down
 * the same way and resolves 1, so the orchestrator restarts it.
 *
 * @example
 *   const server = await serve(app, { port, logger, handleSignals: false });
 *   return stopOnSignal(() => server.close(), logger);
 */
export async function stopOnSignal(
  close: () => Promise<void>,
  logger?: Logger,
  failed?: Promise<unknown>,
): Promise<number> {
  let onSignal: (signal: NodeJS.Signals) => void = () => {};
  const why = await new Promise<{ signal: NodeJS.Signals } | { failure: unknown }>((resolve) => {
    onSignal = (signal) => resolve({ signal });
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
    failed?.then(
      (failure) => resolve({ failure }),
      (failure: unknown) => resolve({ failure }),
    );
  });
  process.off('SIGTERM', onSignal);
  process.off('SIGINT', onSignal);
  if ('signal' in why) logger?.info({ signal: why.signal }, 'signal received');
  else logger?.error({ err: why.failure }, 'the service failed: shutting down, exit code 1');
  try {
    await close();
    return 'signal' in why ? 0 : 1;
  } catch (err) {
    logger?.error({ err }, 'shutdown failed');
    return 1;
  }
}
