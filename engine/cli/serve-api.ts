import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { serve } from '../../services/kit/index.ts';
import { createEngineApi } from '../http/app.ts';
import { reflect } from '../runtime/compile.ts';
import type { RunningEngine } from '../runtime/engine.ts';
import type { Store } from '../store/index.ts';
import { SERVICE } from './service-info.ts';

/**
 * Serves the HTTP API of a running engine on `server.ip:server.port` under `server.apiPrefix`.
 * `close()` drains requests, then runs `onShutdown` (the engine's graceful stop).
 */
export function serveApi(
  engine: RunningEngine,
  store: Store,
  registry: Registry,
  logger: Logger,
  onShutdown: () => Promise<void> = async () => {},
) {
  const { config, topology } = engine.compiled;
  const app = createEngineApi({
    apiPrefix: config.server.apiPrefix,
    store,
    topology,
    reflection: reflect(engine.compiled),
    logger,
    registry,
    service: SERVICE,
    ready: () => engine.ready(),
  });
  return serve(app, {
    hostname: config.server.ip,
    port: config.server.port,
    logger,
    onShutdown,
    handleSignals: false,
  });
}
