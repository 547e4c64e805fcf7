/**
 * The messages of `controlplane.proto` as `@grpc/proto-loader` decodes them with
 * `LOADER_OPTIONS` (camelCase fields, enums as names, 64-bit integers as numbers, defaults set).
 * Written by hand; `test/engine/controlplane/messages.test.ts` checks them against the proto.
 */

export type NodeState = 'NODE_STATE_UNSPECIFIED' | 'NODE_STATE_RUNNING' | 'NODE_STATE_PAUSED';

export interface PartitionFeedback {
  readonly topic: string;
  readonly partition: number;
  readonly committedOffset: number;
  readonly highWatermark: number;
  readonly lag: number;
}

export interface NodeFeedback {
  readonly node: string;
  readonly state: NodeState;
  readonly messagesPerSecond: number;
  readonly partitions: readonly PartitionFeedback[];
}

export interface FeedbackEvent {
  readonly engineId: string;
  readonly instanceId: string;
  readonly sequence: number;
  readonly sentAtMs: number;
  readonly windowMs: number;
  readonly gated: boolean;
  readonly nodes: readonly NodeFeedback[];
  /** When a gated engine resumes by itself (`resumeAfterMs`), Unix ms; 0: not set. */
  readonly releaseAtMs: number;
}

export interface DesiredStateAck {
  readonly requestId: string;
  readonly accepted: boolean;
  readonly reason: string;
}

export interface GraphNode {
  readonly id: string;
  readonly topic: string;
}

export interface GraphEdge {
  readonly id: string;
  readonly parent: string;
  readonly child: string;
  readonly sentence: string;
}

/** Sent once per stream; older engines never send it (see `controlplane.proto`). */
export interface EngineGraph {
  readonly engineId: string;
  readonly instanceId: string;
  readonly nodes: readonly GraphNode[];
  readonly edges: readonly GraphEdge[];
  readonly heads: readonly string[];
}

/** What the engine writes: exactly one of the three. Decoded, `kind` names the one set. */
export type EngineMessage =
  | { readonly feedback: FeedbackEvent; readonly kind?: 'feedback' }
  | { readonly ack: DesiredStateAck; readonly kind?: 'ack' }
  | { readonly graph: EngineGraph; readonly kind?: 'graph' };

export interface NodeDesiredState {
  readonly node: string;
  /** A number when the sender used a value this proto does not know. */
  readonly state: NodeState | number;
}

export interface DesiredState {
  readonly requestId: string;
  readonly nodes: readonly NodeDesiredState[];
}
