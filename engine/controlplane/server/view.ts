import type { EngineGraph, NodeFeedback } from '../messages.ts';
import type { NodePoint } from './history.ts';
import type { InstanceStatus } from './liveness.ts';
import type { DesiredStateRequest } from './requests.ts';
import type { ControlPlaneState, EngineEntry, Instance } from './state.ts';

/** A node over the engine's instances that are not gone: `mixed` when they disagree. */
export type NodeStatus = 'running' | 'paused' | 'mixed' | 'unknown';

export interface PartitionView {
  readonly instanceId: string;
  readonly topic: string;
  readonly partition: number;
  readonly committedOffset: number;
  readonly highWatermark: number;
  readonly lag: number;
}

export interface NodeView {
  readonly node: string;
  /** From the graph; null when no instance sent one. */
  readonly topic: string | null;
  readonly head: boolean;
  readonly state: NodeStatus;
  readonly messagesPerSecond: number;
  readonly lag: number;
  readonly partitions: readonly PartitionView[];
  readonly history: readonly NodePoint[];
}

export interface InstanceView {
  readonly instanceId: string;
  readonly status: InstanceStatus;
  readonly connected: boolean;
  readonly lastHeardAt: number;
  readonly sequence: number;
  readonly gated: boolean;
  readonly releaseAtMs: number | null;
}

export interface EngineView {
  readonly engineId: string;
  /** The best of its instances': live if one is. */
  readonly status: InstanceStatus;
  /** An instance not gone still waits for its first desired state. */
  readonly gated: boolean;
  /** The earliest time a gated instance resumes by itself (`resumeAfterMs`), or null. */
  readonly releaseAtMs: number | null;
  readonly graph: Pick<EngineGraph, 'nodes' | 'edges' | 'heads'> | null;
  readonly nodes: readonly NodeView[];
  readonly instances: readonly InstanceView[];
}

export interface StateView {
  readonly now: number;
  readonly engines: readonly EngineView[];
  readonly requests: readonly DesiredStateRequest[];
}

export function stateView(state: ControlPlaneState): StateView {
  return {
    now: state.now(),
    engines: state.engines().map((engine) => engineView(state, engine)),
    requests: state.requests.recent(),
  };
}

const STATUS_RANK: Record<InstanceStatus, number> = { live: 0, stale: 1, gone: 2 };

export function engineView(state: ControlPlaneState, engine: EngineEntry): EngineView {
  const instances = [...engine.instances.values()].map((i) => instanceView(state, i));
  const present = [...engine.instances.values()].filter((i) => state.status(i) !== 'gone');
  const gatedReleases = instances.filter((i) => i.status !== 'gone' && i.gated);
  const releases = gatedReleases.flatMap((i) => (i.releaseAtMs === null ? [] : [i.releaseAtMs]));
  const { graph } = engine;
  const names = [
    ...new Set([
      ...(graph?.nodes.map((n) => n.id) ?? []),
      ...present.flatMap((i) => i.feedback?.nodes.map((n) => n.node) ?? []),
    ]),
  ];
  return {
    engineId: engine.engineId,
    status: instances.map((i) => i.status).sort((a, b) => STATUS_RANK[a] - STATUS_RANK[b])[0] ?? 'gone',
    gated: gatedReleases.length > 0,
    releaseAtMs: releases.length > 0 ? Math.min(...releases) : null,
    graph: graph && { nodes: graph.nodes, edges: graph.edges, heads: graph.heads },
    nodes: names.map((node) => nodeView(node, engine, present)),
    instances,
  };
}

function nodeView(node: string, engine: EngineEntry, present: readonly Instance[]): NodeView {
  const samples = present.flatMap((instance) =>
    (instance.feedback?.nodes ?? []).filter((n) => n.node === node).map((n) => ({ instance, n })),
  );
  const partitions = samples.flatMap(({ instance, n }) =>
    n.partitions.map((p) => ({ instanceId: instance.instanceId, ...p })),
  );
  return {
    node,
    topic: engine.graph?.nodes.find((n) => n.id === node)?.topic ?? null,
    head: engine.graph?.heads.includes(node) ?? false,
    state: nodeStatus(samples.map(({ n }) => n)),
    messagesPerSecond: samples.reduce((sum, { n }) => sum + n.messagesPerSecond, 0),
    lag: partitions.reduce((sum, p) => sum + p.lag, 0),
    partitions,
    history: engine.history.of(node),
  };
}

function nodeStatus(samples: readonly NodeFeedback[]): NodeStatus {
  const states = new Set(samples.map((n) => (n.state === 'NODE_STATE_PAUSED' ? 'paused' : 'running')));
  if (states.size === 0) return 'unknown';
  return states.size > 1 ? 'mixed' : ([...states][0] as NodeStatus);
}

function instanceView(state: ControlPlaneState, instance: Instance): InstanceView {
  const { feedback } = instance;
  return {
    instanceId: instance.instanceId,
    status: state.status(instance),
    connected: instance.connection !== null,
    lastHeardAt: instance.lastHeardAt,
    sequence: feedback?.sequence ?? 0,
    gated: feedback?.gated ?? true,
    releaseAtMs: feedback?.releaseAtMs ? feedback.releaseAtMs : null,
  };
}
