import { readFileSync } from 'node:fs';
import type { Hono } from 'hono';
import type { Logger } from 'pino';
import { Registry } from 'prom-client';
import { createServiceApp, healthRoutes } from '../../../services/kit/index.ts';
import { SERVICE } from '../../cli/service-info.ts';
import { consoleApi } from './api.ts';
import { stateEvents } from './events.ts';
import { changeGuard } from './guard.ts';
import { ConsolePage } from './page.tsx';
import type { ControlPlaneState } from './state.ts';

/** Served as they are: no build step. */
const ASSETS: Record<string, { type: string; body: string }> = {
  '/console.js': { type: 'text/javascript; charset=utf-8', body: asset('console.js') },
  '/console.css': { type: 'text/css; charset=utf-8', body: asset('console.css') },
};

function asset(name: string): string {
  return readFileSync(new URL(`./${name}`, import.meta.url), 'utf8');
}

export interface ConsoleAppOptions {
  readonly state: ControlPlaneState;
  readonly logger: Logger;
  /** Required for every change when set. */
  readonly token: string | null;
}

/** The console's HTTP side: the page and its assets, the JSON API, live updates, health and metrics. */
export function consoleApp({ state, logger, token }: ConsoleAppOptions): Hono {
  const app = createServiceApp({ logger, registry: new Registry(), health: healthRoutes(SERVICE) });
  app.use('/api/*', changeGuard(token));
  app.get('/', (c) => c.html(`<!doctype html>${ConsolePage({ tokenRequired: token !== null })}`));
  for (const [path, { type, body }] of Object.entries(ASSETS)) {
    app.get(path, (c) => c.body(body, 200, { 'content-type': type, 'cache-control': 'no-cache' }));
  }
  app.get('/api/events', stateEvents(state));
  app.route('/api', consoleApi(state, logger));
  return app;
}
