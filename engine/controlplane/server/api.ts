import { Hono } from 'hono';
import type { Logger } from 'pino';
import { HttpError } from '../../../services/kit/index.ts';
import type { NodeDesiredState, NodeState } from '../messages.ts';
import { consoleView } from './console-view.ts';
import { requesterOf } from './guard.ts';
import type { DesiredStateRequest } from './requests.ts';
import type { ControlPlaneState, EngineEntry } from './state.ts';
import { engineView } from './view.ts';

const STATES: Record<string, NodeState> = { pause: 'NODE_STATE_PAUSED', resume: 'NODE_STATE_RUNNING' };

/**
 * The console's JSON API (mounted under `/api`): read the state, and send desired states, each
 * answered 202 with the request whose acknowledgements follow in `GET /api/requests/:id` and
 * in the live updates. Changes go through `changeGuard`.
 */
export function consoleApi(state: ControlPlaneState, logger: Logger): Hono {
  const api = new Hono();

  const knownEngine = (engineId: string) => {
    const engine = state.engine(engineId);
    if (!engine) throw new HttpError(404, `no engine "${engineId}" has connected`);
    return engine;
  };
  const stateOf = (verb: string): NodeState => {
    const wanted = STATES[verb];
    if (!wanted) throw new HttpError(404, `unknown action "${verb}" (pause, resume)`);
    return wanted;
  };
  const send = (
    by: ReturnType<typeof requesterOf>,
    engineId: string,
    action: string,
    nodes: NodeDesiredState[],
  ): DesiredStateRequest => {
    if (state.connected(engineId).length === 0) {
      throw new HttpError(409, `no instance of engine "${engineId}" is connected`);
    }
    const request = state.send(engineId, action, nodes, by);
    logger.info(
      { requestId: request.requestId, engineId, action, nodes, by, instances: request.answers.length },
      `desired state sent: ${engineId} ${action}`,
    );
    return request;
  };

  api.get('/engines', async (c) => c.json(await consoleView(state)));

  api.get('/engines/:engine', async (c) => {
    const engine = knownEngine(c.req.param('engine'));
    const view = await consoleView(state);
    return c.json(view.engines.find((e) => e.engineId === engine.engineId) as object);
  });

  api.get('/requests/:id', (c) => {
    const request = state.requests.get(c.req.param('id'));
    if (!request) throw new HttpError(404, `no recent request "${c.req.param('id')}"`);
    return c.json(request);
  });

  api.post('/engines/:engine/nodes/:node/:verb', (c) => {
    const { engine: engineId, node, verb } = c.req.param();
    const wanted = stateOf(verb);
    const engine = knownEngine(engineId);
    if (!engineView(state, engine).nodes.some((n) => n.node === node)) {
      throw new HttpError(404, `engine "${engineId}" has no node "${node}"`);
    }
    return c.json(send(requesterOf(c), engineId, `${verb} ${node}`, [{ node, state: wanted }]), 202);
  });

  const everyNode = (engine: EngineEntry, wanted: NodeState) =>
    engineView(state, engine).nodes.map(({ node }) => ({ node, state: wanted }));

  api.post('/engines/:engine/:verb', (c) => {
    const { engine: engineId, verb } = c.req.param();
    const nodes = everyNode(knownEngine(engineId), stateOf(verb));
    return c.json(send(requesterOf(c), engineId, `${verb} all nodes`, nodes), 202);
  });

  /** Every node of every connected engine: how an operator releases gated engines at once. */
  api.post('/resume-all', (c) => {
    const requests = state
      .engines()
      .filter((engine) => state.connected(engine.engineId).length > 0)
      .map((engine) =>
        send(requesterOf(c), engine.engineId, 'resume all nodes', everyNode(engine, 'NODE_STATE_RUNNING')),
      );
    return c.json({ requests }, 202);
  });

  return api;
}
