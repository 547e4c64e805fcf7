import { randomUUID } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { BehaviorSubject, distinctUntilChanged, map, type Observable } from 'rxjs';
import { type Clock, systemClock } from '../../operators/clock.ts';
import { type BackoffOptions, DEFAULT_BACKOFF } from './backoff.ts';
import { ControlChannel } from './channel.ts';
import { validateDesiredState } from './desired-state.ts';
import { DueTimer } from './due-timer.ts';
import { FeedbackScheduler } from './feedback.ts';
import { type NodeChange, NodeGate } from './gate.ts';
import type { GraphDescription } from './graph.ts';
import type { FeedbackEvent } from './messages.ts';
import { createControlPlaneMetrics } from './metrics.ts';
import type { FeedbackSource } from './snapshot.ts';

export type { BackoffOptions } from './backoff.ts';
export type { DesiredNodeState } from './desired-state.ts';
export { type GraphDescription, graphDescription } from './graph.ts';
export type * from './messages.ts';
export { controlPlaneService, PROTO_PATH } from './proto.ts';
export { type EngineSample, engineSnapshot, type FeedbackSource, type NodeSample } from './snapshot.ts';

/** Below this, a `feedbackInterval` (0 included) would only spin the CPU. */
export const MIN_FEEDBACK_INTERVAL_MS = 100;

export interface ControlPlaneOptions {
  /** `controlPlane.grpcAddress`: a gRPC target (`host:port`, `dns:///host:port`, `unix:/path`). */
  readonly address: string;
  /** The configuration `id`. */
  readonly engineId: string;
  /** The consumer node ids. */
  readonly nodes: readonly string[];
  /** Sent once per stream so a control plane can draw it; none: not sent (as before it existed). */
  readonly graph?: GraphDescription;
  readonly feedbackIntervalMs: number;
  readonly resumeAfterMs: number | null;
  readonly logger: Logger;
  /** The engine's metrics registry. */
  readonly registry: Registry;
  readonly backoff?: Partial<BackoffOptions>;
  /** Default: insecure. TLS: `grpc.credentials.createSsl(rootCert, key, cert)`. */
  readonly credentials?: grpc.ChannelCredentials;
  /** HTTP/2 keepalive ping period (default 30 s). */
  readonly keepaliveMs?: number;
  /** Time and timers of the backoff, the feedback pace and the release (default: the system's). */
  readonly clock?: Clock;
}

export interface ControlPlane {
  /** Per consumer node: true while paused. Starts true (gated) and stays so until told otherwise. */
  paused(node: string): Observable<boolean>;
  /** Connects and starts sending feedback measured by `source`. */
  start(source: FeedbackSource): void;
  /** Ends the stream and every timer; node states stay as they are. */
  close(): Promise<void>;
}

/**
 * The engine's control-plane client (`engine.md` §10): feedback events out, desired states in,
 * node gating and the `resumeAfterMs` fallback. Create it only when `controlPlane` is configured.
 */
export function createControlPlane(options: ControlPlaneOptions): ControlPlane {
  const { logger, engineId } = options;
  const clock = options.clock ?? systemClock;
  const log = logger.child({ component: 'controlplane', address: options.address });
  const metrics = createControlPlaneMetrics(options.registry);
  const gate = new NodeGate(options.nodes, options.resumeAfterMs);
  const states = new BehaviorSubject<ReadonlyMap<string, boolean>>(pausedMap(gate));
  const instanceId = randomUUID();
  let sequence = 0;
  let source: FeedbackSource | null = null;
  /** Opens the gate at the `resumeAfterMs` release time. */
  const release = new DueTimer(clock);

  const apply = (changes: readonly NodeChange[], cause: 'desired-state' | 'resume-after') => {
    if (changes.length === 0) return;
    for (const { node, state } of changes) metrics.stateChanges.inc({ node, state, cause });
    states.next(pausedMap(gate));
  };

  const channel: ControlChannel = new ControlChannel(
    {
      address: options.address,
      engineId,
      credentials: options.credentials ?? grpc.credentials.createInsecure(),
      keepaliveMs: options.keepaliveMs ?? 30_000,
      backoff: { ...DEFAULT_BACKOFF, ...options.backoff },
      clock,
    },
    {
      onUp() {
        metrics.connected.set(1);
        log.info('connected to the control plane');
        // Written before the first feedback event: the stream keeps the order.
        if (options.graph) void channel.write({ graph: { engineId, instanceId, ...options.graph } });
        feedback.start();
      },
      onDown(reason, retryInMs) {
        metrics.connected.set(0);
        metrics.reconnects.inc();
        feedback.stop();
        log.warn({ reason, retryInMs }, 'control plane stream lost; node states unchanged; reconnecting');
        const releaseAt = gate.channelFailed(clock.now());
        if (releaseAt === null || release.armed) return;
        log.warn(
          { resumeAfterMs: options.resumeAfterMs },
          'no desired state received yet: all nodes resume if none arrives in time',
        );
        release.arm(releaseAt, () => {
          const changes = gate.tick(clock.now());
          if (changes.length > 0)
            log.warn('no desired state received within resumeAfterMs: resuming all nodes');
          apply(changes, 'resume-after');
        });
      },
      onMessage(message) {
        const result = validateDesiredState(message, gate.nodes);
        metrics.desiredStates.inc({ result: result.accepted ? 'accepted' : 'rejected' });
        if (result.accepted) {
          const changes = gate.applyDesired(result.changes);
          release.cancel();
          log.info({ requestId: result.requestId, changes }, 'desired state applied');
          apply(changes, 'desired-state');
        } else {
          log.warn({ requestId: result.requestId, reason: result.reason }, 'desired state rejected');
        }
        void channel.write({
          ack: {
            requestId: result.requestId,
            accepted: result.accepted,
            reason: result.accepted ? '' : result.reason,
          },
        });
      },
    },
  );

  const feedback = new FeedbackScheduler({
    intervalMs: Math.max(options.feedbackIntervalMs, MIN_FEEDBACK_INTERVAL_MS),
    clock,
    async send() {
      if (!source) return null;
      const sample = await source();
      const sentAtMs = clock.now();
      const event: FeedbackEvent = {
        engineId,
        instanceId,
        sequence: sequence + 1,
        sentAtMs,
        windowMs: sample.windowMs,
        gated: gate.gated,
        releaseAtMs: gate.releaseAt ?? 0,
        nodes: sample.nodes.map((n) => ({
          ...n,
          state: gate.state(n.node) === 'paused' ? 'NODE_STATE_PAUSED' : 'NODE_STATE_RUNNING',
        })),
      };
      if (!(await channel.write({ feedback: event }))) return null;
      sequence += 1;
      metrics.feedbackSent.inc();
      return sentAtMs;
    },
    onError: (error) => log.warn({ err: error }, 'could not measure the engine for a feedback event'),
  });

  metrics.connected.set(0);
  return {
    paused(node) {
      gate.state(node); // throws on an unknown node: a wiring mistake, not a runtime condition
      return states.pipe(
        map((paused) => paused.get(node) === true),
        distinctUntilChanged(),
      );
    },
    start(feedbackSource) {
      source = feedbackSource;
      channel.start();
    },
    async close() {
      feedback.stop();
      release.cancel();
      await channel.close();
      metrics.connected.set(0);
    },
  };
}

function pausedMap(gate: NodeGate): ReadonlyMap<string, boolean> {
  return new Map([...gate.nodes].map((node) => [node, gate.state(node) === 'paused']));
}
