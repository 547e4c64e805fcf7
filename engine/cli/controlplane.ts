import { type CliCommand, UsageError } from '../../services/kit/cli-command.ts';
import { stopOnSignal } from '../../services/kit/index.ts';
import { createLogger } from '../logging/logger.ts';

const DEFAULT_GRPC = '0.0.0.0:50051';
const DEFAULT_HTTP = '127.0.0.1:8080';

export const controlplaneCommand: CliCommand = {
  name: 'controlplane',
  summary: 'run the control plane: engines connect over gRPC, operators use its web console',
  usage: `Usage: streamfold controlplane [options]

Runs the control plane engines connect to (their controlPlane.grpcAddress) and its web console:
the engines and instances, each engine's graph with per-node state, rate and lag, and pause and
resume per node, per engine or for all. The console's JSON API under /api is the scripted way
(see engine/controlplane/server/README.md).

The console can stop production pipelines: it listens on loopback by default; bound to any
other address it refuses to start without a token, and with a token every change needs
"Authorization: Bearer <token>".

Options (environment variable in brackets):
  --grpc <host:port>     gRPC endpoint for the engines (default ${DEFAULT_GRPC}) [STREAMFOLD_CONTROLPLANE_GRPC]
  --http <host:port>     console and JSON API (default ${DEFAULT_HTTP}) [STREAMFOLD_CONTROLPLANE_HTTP]
  --token <token>        required for changes [STREAMFOLD_CONSOLE_TOKEN; prefer it: flags show in ps]
  --stale-after <ms>     an instance silent this long is stale (default 10000)
  --gone-after <ms>      an instance silent this long is gone (default 60000)
  --log-level <level>    trace|debug|info|warn|error (default: LOG_LEVEL or info)
  -h, --help             show this help`,
  options: {
    grpc: { type: 'string' },
    http: { type: 'string' },
    token: { type: 'string' },
    'stale-after': { type: 'string' },
    'gone-after': { type: 'string' },
    'log-level': { type: 'string' },
  },
  positionals: 0,
  async run({ values }, io) {
    const env = process.env;
    const grpcAddress = String(values.grpc ?? env.STREAMFOLD_CONTROLPLANE_GRPC ?? DEFAULT_GRPC);
    const grpc = hostPort('--grpc', grpcAddress);
    const http = hostPort('--http', String(values.http ?? env.STREAMFOLD_CONTROLPLANE_HTTP ?? DEFAULT_HTTP));
    const token = String(values.token ?? env.STREAMFOLD_CONSOLE_TOKEN ?? '') || null;
    const staleAfterMs = milliseconds('--stale-after', values['stale-after'], 10_000);
    const goneAfterMs = milliseconds('--gone-after', values['gone-after'], 60_000);
    if (goneAfterMs <= staleAfterMs) throw new UsageError('--gone-after must be longer than --stale-after');
    const logger = createLogger(values['log-level'] as string | undefined);
    // Loaded on demand: other commands need neither the server nor elkjs.
    const { startControlPlaneServer, DEFAULT_LIVENESS } = await import('../controlplane/server/index.ts');
    let server: Awaited<ReturnType<typeof startControlPlaneServer>>;
    try {
      server = await startControlPlaneServer({
        grpc: `${grpc.host}:${grpc.port}`,
        http,
        token,
        logger,
        liveness: { ...DEFAULT_LIVENESS, staleAfterMs, goneAfterMs },
      });
    } catch (error) {
      io.err(`streamfold controlplane: ${(error as Error).message}`);
      return 1;
    }
    const shown = http.host.includes(':') ? `[${http.host}]` : http.host;
    io.err(
      `streamfold controlplane: engines connect to ${grpc.host}:${server.grpcPort}; console at http://${shown}:${server.httpPort}/${token ? ' (token required for changes)' : ''}`,
    );
    return stopOnSignal(() => server.close(), logger);
  },
};

/** `host:port` or `[v6]:port`; port 0 picks a free one. */
export function hostPort(flag: string, value: string): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(value);
  const port = Number(match?.[3]);
  if (!match || port > 65535)
    throw new UsageError(`${flag} must be host:port (got ${JSON.stringify(value)})`);
  return { host: (match[1] ?? match[2]) as string, port };
}

function milliseconds(flag: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  const ms = Number(value);
  if (!Number.isInteger(ms) || ms < 1) throw new UsageError(`${flag} must be a positive integer (ms)`);
  return ms;
}
