import type { DesiredNodeState } from './desired-state.ts';

export interface NodeChange {
  readonly node: string;
  readonly state: DesiredNodeState;
}

/**
 * The state of every node of one engine (pure: the caller passes the time and runs the timers).
 *
 * Gated at start: every node paused until the first valid desired state. If the channel fails
 * while still gated, the gate opens by itself `resumeAfterMs` after that first failure (never
 * when null); a later reconnection does not postpone it, only a desired state does. Losing the
 * channel never changes a node's state.
 */
export class NodeGate {
  readonly #states: Map<string, DesiredNodeState>;
  readonly #resumeAfterMs: number | null;
  #received = false;
  #released = false;
  #releaseAt: number | null = null;

  constructor(nodes: readonly string[], resumeAfterMs: number | null) {
    this.#states = new Map(nodes.map((node) => [node, 'paused']));
    this.#resumeAfterMs = resumeAfterMs;
  }

  /** No desired state received yet and not released by `resumeAfterMs`. */
  get gated(): boolean {
    return !this.#received && !this.#released;
  }

  /** While gated: when the gate opens by itself (the caller's time), or null if it will not. */
  get releaseAt(): number | null {
    return this.gated ? this.#releaseAt : null;
  }

  get nodes(): ReadonlySet<string> {
    return new Set(this.#states.keys());
  }

  state(node: string): DesiredNodeState {
    const state = this.#states.get(node);
    if (!state) throw new Error(`unknown node "${node}" (known: ${[...this.#states.keys()].join(', ')})`);
    return state;
  }

  /** Applies a validated desired state; nodes it does not name keep theirs. Returns the changes. */
  applyDesired(changes: ReadonlyMap<string, DesiredNodeState>): NodeChange[] {
    this.#received = true;
    this.#releaseAt = null;
    return this.#set([...changes]);
  }

  /** The channel failed at `now`: the time the gate will open by itself, or null if it will not. */
  channelFailed(now: number): number | null {
    if (!this.gated || this.#resumeAfterMs === null) return null;
    this.#releaseAt ??= now + this.#resumeAfterMs;
    return this.#releaseAt;
  }

  /** Opens the gate (every node running) if its release time has come by `now`. Returns the changes. */
  tick(now: number): NodeChange[] {
    if (!this.gated || this.#releaseAt === null || now < this.#releaseAt) return [];
    this.#released = true;
    this.#releaseAt = null;
    return this.#set([...this.#states.keys()].map((node) => [node, 'running']));
  }

  #set(entries: ReadonlyArray<readonly [string, DesiredNodeState]>): NodeChange[] {
    const changed: NodeChange[] = [];
    for (const [node, state] of entries) {
      if (this.#states.get(node) === state) continue;
      this.#states.set(node, state);
      changed.push({ node, state });
    }
    return changed;
  }
}
