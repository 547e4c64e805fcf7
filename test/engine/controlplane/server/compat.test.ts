/**
 * The graph message (and `release_at_ms`) were added to the protocol after engines shipped:
 * both directions must keep working with a peer that does not know them.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { firstValueFrom } from 'rxjs';
import * as assert from 'uvu/assert';
import { PROTO_PATH } from '../../../../engine/controlplane/index.ts';
import { LOADER_OPTIONS, SERVICE_NAME } from '../../../../engine/controlplane/proto.ts';
import { test } from '../../../support/suite.ts';
import { CONFIG, startEngineHarness } from '../engine-harness.ts';
import { waitFor } from '../support.ts';
import { nodeOf, withEngine } from './support.ts';

test('an engine that sends no graph: listed from its feedback, its nodes paused and resumed', async () => {
  await withEngine({ sendGraph: false }, async (cp) => {
    const engine = await waitFor('the engine from its feedback', () => cp.engine(CONFIG.id));
    assert.is(engine.graph, null);
    assert.is(engine.layout, null);
    assert.equal(
      engine.nodes.map((n) => [n.node, n.topic, n.state]),
      [
        ['customers', null, 'paused'],
        ['products', null, 'paused'],
      ],
    );
    const resumed = await cp.post(`/api/engines/${CONFIG.id}/resume`);
    assert.is((await cp.settled(String(resumed.body.requestId))).status, 'accepted');
    await waitFor(
      'running',
      async () => nodeOf(await cp.engine(CONFIG.id), 'customers')?.state === 'running',
    );
  });
});

/** `controlplane.proto` as it was before: no graph message, no `release_at_ms`. */
function protoWithoutGraph(dir: string): string {
  const current = readFileSync(PROTO_PATH, 'utf8');
  const old = current
    .replace(/^\s*EngineGraph graph = 3;\n/m, '')
    .replace(/^\s*int64 release_at_ms = 8;\n/m, '')
    .replace(/\nmessage (EngineGraph|GraphNode|GraphEdge) \{[^}]*\}\n/g, '\n');
  assert.not.match(old, /graph = 3|release_at_ms|EngineGraph/, 'the old proto has none of the additions');
  const path = join(dir, 'controlplane-v1.proto');
  writeFileSync(path, old);
  return path;
}

test('an engine sending its graph to a control plane built without it works as before', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'streamfold-proto-'));
  const definition = protoLoader.loadSync(protoWithoutGraph(dir), LOADER_OPTIONS);
  const received: Array<Record<string, unknown>> = [];
  const calls = new Set<grpc.ServerDuplexStream<Record<string, unknown>, object>>();
  const server = new grpc.Server();
  server.addService(definition[SERVICE_NAME] as grpc.ServiceDefinition, {
    Connect(call: grpc.ServerDuplexStream<Record<string, unknown>, object>) {
      calls.add(call);
      call.on('data', (message: Record<string, unknown>) => received.push(message));
      call.on('error', () => calls.delete(call));
    },
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) =>
      e ? reject(e) : resolve(p),
    ),
  );
  const h = await startEngineHarness({ address: `127.0.0.1:${port}` });
  try {
    await waitFor('feedback', () => received.some((m) => m.kind === 'feedback'));
    const first = received[0] as Record<string, unknown>;
    assert.is(first.kind, undefined, 'the graph arrived first, as an unknown field the old side skips');
    assert.not.ok('graph' in first);
    const feedback = received.find((m) => m.kind === 'feedback')?.feedback as Record<string, unknown>;
    assert.is(feedback.engineId, CONFIG.id);
    assert.not.ok('releaseAtMs' in feedback);

    for (const call of calls) {
      call.write({ requestId: 'old-1', nodes: [{ node: 'customers', state: 'NODE_STATE_RUNNING' }] });
    }
    await waitFor('the ack', () =>
      received.some((m) => (m.ack as { requestId?: string; accepted?: boolean })?.requestId === 'old-1'),
    );
    assert.ok(received.some((m) => (m.ack as { accepted?: boolean })?.accepted));
    assert.not.ok(await firstValueFrom(h.plane.paused('customers')), 'the desired state was applied');
  } finally {
    await h.close();
    server.forceShutdown();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
