import type { Logger } from 'pino';
import { Subject } from 'rxjs';
import type {
  DesiredState,
  EngineGraph,
  EngineMessage,
  FeedbackEvent,
  NodeDesiredState,
} from '../messages.ts';
import { NodeHistory } from './history.ts';
import { instanceStatus, type Liveness } from './liveness.ts';
import { type DesiredStateRequest, type Requester, RequestLog } from './requests.ts';

/** The control plane's end of one engine stream. */
export interface Connection {
  write(desired: DesiredState): void;
}

export interface Instance {
  readonly instanceId: string;
  readonly engineId: string;
  connection: Connection | null;
  lastHeardAt: number;
  feedback: FeedbackEvent | null;
}

export interface EngineEntry {
  readonly engineId: string;
  /** The last graph an instance sent; null while only engines without the graph message spoke. */
  graph: EngineGraph | null;
  readonly instances: Map<string, Instance>;
  readonly history: NodeHistory;
}

/** What the gRPC side calls for one stream. */
export interface StreamHandler {
  receive(message: EngineMessage): void;
  end(): void;
}

export interface StateOptions {
  readonly liveness: Liveness;
  /** How far back the sparklines go. */
  readonly historyMs: number;
  readonly logger: Logger;
  readonly now?: () => number;
}

/**
 * Everything the control plane knows, from the engines' messages: engines, their instances,
 * graphs, last feedback, sparkline history, and the desired states sent with their acks.
 * `changed` emits after every change the console should see.
 */
export class ControlPlaneState {
  readonly changed = new Subject<void>();
  readonly requests = new RequestLog();
  readonly liveness: Liveness;
  readonly now: () => number;
  readonly #engines = new Map<string, EngineEntry>();
  readonly #options: StateOptions;
  #statuses = '';

  constructor(options: StateOptions) {
    this.#options = options;
    this.liveness = options.liveness;
    this.now = options.now ?? Date.now;
  }

  engines(): readonly EngineEntry[] {
    return [...this.#engines.values()].sort((a, b) => a.engineId.localeCompare(b.engineId));
  }

  engine(engineId: string): EngineEntry | undefined {
    return this.#engines.get(engineId);
  }

  /** A stream opened. Its instance is known from its first graph or feedback message. */
  open(connection: Connection): StreamHandler {
    let instance: Instance | null = null;
    const bind = (engineId: string, instanceId: string): Instance => {
      if (instance) return instance;
      const engine = this.#entry(engineId);
      instance = engine.instances.get(instanceId) ?? {
        instanceId,
        engineId,
        connection,
        lastHeardAt: this.now(),
        feedback: null,
      };
      instance.connection = connection;
      engine.instances.set(instanceId, instance);
      this.#options.logger.info({ engineId, instanceId }, 'engine instance connected');
      return instance;
    };
    return {
      receive: (message) => {
        if (message.kind === 'graph' && 'graph' in message) {
          const { graph } = message;
          bind(graph.engineId, graph.instanceId).lastHeardAt = this.now();
          this.#entry(graph.engineId).graph = graph;
        } else if (message.kind === 'feedback' && 'feedback' in message) {
          this.#feedback(bind(message.feedback.engineId, message.feedback.instanceId), message.feedback);
        } else if (message.kind === 'ack' && 'ack' in message && instance) {
          instance.lastHeardAt = this.now();
          const { requestId, accepted, reason } = message.ack;
          this.#options.logger.info(
            { requestId, engineId: instance.engineId, instanceId: instance.instanceId, accepted, reason },
            accepted ? 'desired state accepted' : 'desired state rejected',
          );
          this.requests.acknowledge(instance.instanceId, message.ack);
        } else {
          return; // a message kind newer than this control plane, or an ack before any feedback
        }
        this.changed.next();
      },
      end: () => {
        const ended = instance;
        if (!ended || ended.connection !== connection) return;
        ended.connection = null;
        this.requests.streamEnded(ended.instanceId);
        this.#options.logger.info(
          { engineId: ended.engineId, instanceId: ended.instanceId },
          'engine instance disconnected',
        );
        this.changed.next();
      },
    };
  }

  /** Sends a desired state to every connected instance of the engine (the caller checked there is one). */
  send(
    engineId: string,
    action: string,
    nodes: readonly NodeDesiredState[],
    by: Requester,
  ): DesiredStateRequest {
    const targets = this.connected(engineId);
    const { request, desired } = this.requests.create(
      { engineId, action, nodes, at: this.now(), by },
      targets.map((t) => t.instanceId),
    );
    for (const target of targets) target.connection?.write(desired);
    this.changed.next();
    return request;
  }

  connected(engineId: string): Instance[] {
    return [...(this.#engines.get(engineId)?.instances.values() ?? [])].filter((i) => i.connection !== null);
  }

  /** Call periodically: statuses change with time alone (stale, gone); long-gone instances are dropped. */
  sweep(): void {
    const now = this.now();
    const { goneAfterMs, forgetAfterMs } = this.liveness;
    for (const engine of this.#engines.values()) {
      for (const [id, instance] of engine.instances) {
        if (now - instance.lastHeardAt >= goneAfterMs + forgetAfterMs) engine.instances.delete(id);
      }
      if (engine.instances.size === 0) this.#engines.delete(engine.engineId);
    }
    const statuses = this.engines()
      .flatMap((e) => [...e.instances.values()].map((i) => `${i.instanceId}:${this.status(i)}`))
      .join(',');
    if (statuses !== this.#statuses) {
      this.#statuses = statuses;
      this.changed.next();
    }
  }

  status(instance: Instance) {
    return instanceStatus(instance.connection !== null, instance.lastHeardAt, this.now(), this.liveness);
  }

  #entry(engineId: string): EngineEntry {
    let engine = this.#engines.get(engineId);
    if (!engine) {
      engine = {
        engineId,
        graph: null,
        instances: new Map(),
        history: new NodeHistory(this.#options.historyMs),
      };
      this.#engines.set(engineId, engine);
    }
    return engine;
  }

  #feedback(instance: Instance, event: FeedbackEvent): void {
    instance.feedback = event;
    instance.lastHeardAt = this.now();
    const engine = this.#entry(instance.engineId);
    const reporting = [...engine.instances.values()].filter((i) => i.feedback && this.status(i) !== 'gone');
    for (const { node } of event.nodes) {
      const samples = reporting.flatMap((i) => i.feedback?.nodes.filter((n) => n.node === node) ?? []);
      engine.history.add(node, {
        at: instance.lastHeardAt,
        messagesPerSecond: samples.reduce((sum, n) => sum + n.messagesPerSecond, 0),
        lag: samples.reduce((sum, n) => sum + n.partitions.reduce((s, p) => s + p.lag, 0), 0),
      });
    }
  }
}
