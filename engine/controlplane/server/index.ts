import type { Logger } from 'pino';
import { serve } from '../../../services/kit/index.ts';
import { consoleApp } from './app.ts';
import { serveGrpc } from './grpc.ts';
import { DEFAULT_LIVENESS, type Liveness } from './liveness.ts';
import { ControlPlaneState } from './state.ts';

export { DEFAULT_LIVENESS, type Liveness } from './liveness.ts';

export interface ControlPlaneServerOptions {
  /** `host:port` engines dial (`controlPlane.grpcAddress`). */
  readonly grpc: string;
  readonly http: { readonly host: string; readonly port: number };
  /** Required (Bearer) for every change when set; mandatory when `http.host` is not loopback. */
  readonly token: string | null;
  readonly logger: Logger;
  readonly liveness?: Liveness;
  /** How far back the sparklines go (default 5 minutes). */
  readonly historyMs?: number;
}

export interface ControlPlaneServer {
  readonly grpcPort: number;
  readonly httpPort: number;
  readonly state: ControlPlaneState;
  close(): Promise<void>;
}

/** How often statuses are re-evaluated against the clock (stale, gone). */
const SWEEP_MS = 1000;

export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/**
 * `streamfold controlplane`: the gRPC endpoint engines connect to and the HTTP console with its
 * JSON API, in one process.
 */
export async function startControlPlaneServer(
  options: ControlPlaneServerOptions,
): Promise<ControlPlaneServer> {
  const { logger, token } = options;
  if (!isLoopback(options.http.host) && token === null) {
    throw new Error(
      `the console can pause pipelines: bound to ${options.http.host} it needs a token (STREAMFOLD_CONSOLE_TOKEN or --token)`,
    );
  }
  const state = new ControlPlaneState({
    liveness: options.liveness ?? DEFAULT_LIVENESS,
    historyMs: options.historyMs ?? 300_000,
    logger,
  });
  const grpc = await serveGrpc(state, options.grpc);
  const sweeper = setInterval(() => state.sweep(), SWEEP_MS);
  const http = await serve(consoleApp({ state, logger, token }), {
    hostname: options.http.host,
    port: options.http.port,
    logger,
    handleSignals: false,
    // Open live-update streams never finish by themselves.
    shutdownTimeoutMs: 500,
    delayShutdownSeconds: 0,
  }).catch(async (error: unknown) => {
    clearInterval(sweeper);
    await grpc.close();
    throw error;
  });
  return {
    grpcPort: grpc.port,
    httpPort: http.port,
    state,
    async close() {
      clearInterval(sweeper);
      await http.close();
      await grpc.close();
      state.changed.complete();
    },
  };
}
