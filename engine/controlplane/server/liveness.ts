/** How long silence may last before an instance is shown stale, then gone. */
export interface Liveness {
  /** Not heard from for this long (or its stream ended): stale. */
  readonly staleAfterMs: number;
  /** Not heard from for this long: gone (and dropped from the view `forgetAfterMs` later). */
  readonly goneAfterMs: number;
  readonly forgetAfterMs: number;
}

export const DEFAULT_LIVENESS: Liveness = {
  staleAfterMs: 10_000,
  goneAfterMs: 60_000,
  forgetAfterMs: 300_000,
};

export type InstanceStatus = 'live' | 'stale' | 'gone';

export function instanceStatus(
  connected: boolean,
  lastHeardAt: number,
  now: number,
  liveness: Liveness,
): InstanceStatus {
  const silentFor = now - lastHeardAt;
  if (silentFor >= liveness.goneAfterMs) return 'gone';
  return connected && silentFor < liveness.staleAfterMs ? 'live' : 'stale';
}
