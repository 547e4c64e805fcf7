/** A control plane server on free loopback ports, and a small client for its JSON API. */

import type { ConsoleEngine, ConsoleView } from '../../../../engine/controlplane/server/console-view.ts';
import {
  type ControlPlaneServer,
  DEFAULT_LIVENESS,
  type Liveness,
  startControlPlaneServer,
} from '../../../../engine/controlplane/server/index.ts';
import type { DesiredStateRequest } from '../../../../engine/controlplane/server/requests.ts';
import { type EngineHarness, type EngineHarnessOptions, startEngineHarness } from '../engine-harness.ts';
import { capturingLogger, waitFor } from '../support.ts';

export interface Console {
  readonly server: ControlPlaneServer;
  /** Where engines dial. */
  readonly grpcAddress: string;
  readonly url: string;
  readonly logLines: Array<Record<string, unknown>>;
  view(): Promise<ConsoleView>;
  engine(engineId: string): Promise<ConsoleEngine | undefined>;
  /** POSTs to the API as the page does; answers status and JSON body. */
  post(
    path: string,
    headers?: Record<string, string>,
  ): Promise<{ status: number; body: Record<string, unknown> }>;
  /** Waits until the request is no longer pending. */
  settled(requestId: string): Promise<DesiredStateRequest>;
  close(): Promise<void>;
}

export async function startConsole(
  options: { token?: string; liveness?: Partial<Liveness>; host?: string; grpcPort?: number } = {},
): Promise<Console> {
  const { logger, lines } = capturingLogger();
  const server = await startControlPlaneServer({
    grpc: `127.0.0.1:${options.grpcPort ?? 0}`,
    http: { host: options.host ?? '127.0.0.1', port: 0 },
    token: options.token ?? null,
    logger,
    liveness: { ...DEFAULT_LIVENESS, ...options.liveness },
  });
  const url = `http://127.0.0.1:${server.httpPort}`;
  const getJson = async (path: string) => (await fetch(`${url}${path}`)).json();
  const self: Console = {
    server,
    grpcAddress: `127.0.0.1:${server.grpcPort}`,
    url,
    logLines: lines,
    view: () => getJson('/api/engines') as Promise<ConsoleView>,
    async engine(engineId) {
      return (await self.view()).engines.find((e) => e.engineId === engineId);
    },
    async post(path, headers = {}) {
      const response = await fetch(`${url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: '{}',
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    },
    settled(requestId) {
      return waitFor(`request ${requestId} to be answered`, async () => {
        const request = (await getJson(`/api/requests/${requestId}`)) as DesiredStateRequest;
        return request.status !== 'pending' && request;
      });
    },
    close: () => server.close(),
  };
  return self;
}

/** A node of an engine view, with its committed offsets summed over partitions. */
export function nodeOf(engine: ConsoleEngine | undefined, node: string) {
  const view = engine?.nodes.find((n) => n.node === node);
  return (
    view && {
      ...view,
      committed: view.partitions.reduce((sum, p) => sum + Math.max(p.committedOffset, 0), 0),
    }
  );
}

/** Runs `body` with a console and one engine connected to it, and closes both whatever happens. */
export async function withEngine(
  options: Omit<EngineHarnessOptions, 'address'>,
  body: (cp: Console, h: EngineHarness) => Promise<void>,
): Promise<void> {
  const cp = await startConsole();
  try {
    const h = await startEngineHarness({ ...options, address: cp.grpcAddress });
    try {
      await body(cp, h);
    } finally {
      await h.close();
    }
  } finally {
    await cp.close();
  }
}
