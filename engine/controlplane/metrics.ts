import { Counter, Gauge, type Registry } from 'prom-client';

/** The control plane's metrics, registered on the engine's registry. */
export function createControlPlaneMetrics(registry: Registry) {
  const registers = [registry];
  return {
    connected: new Gauge({
      name: 'streamfold_controlplane_connected',
      help: '1 while the stream to the control plane is up, else 0',
      registers,
    }),
    feedbackSent: new Counter({
      name: 'streamfold_controlplane_feedback_sent_total',
      help: 'Feedback events written to the control plane',
      registers,
    }),
    desiredStates: new Counter({
      name: 'streamfold_controlplane_desired_states_total',
      help: 'Desired-state messages received, per result (accepted, rejected)',
      labelNames: ['result'],
      registers,
    }),
    stateChanges: new Counter({
      name: 'streamfold_controlplane_desired_state_changes_total',
      help: 'Node state changes, per node, new state (running, paused) and cause (desired-state, resume-after)',
      labelNames: ['node', 'state', 'cause'],
      registers,
    }),
    reconnects: new Counter({
      name: 'streamfold_controlplane_reconnects_total',
      help: 'Times the stream to the control plane ended or failed to open (a reconnection follows)',
      registers,
    }),
  };
}

export type ControlPlaneMetrics = ReturnType<typeof createControlPlaneMetrics>;
