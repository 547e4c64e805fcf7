import {
  type InternalUpdate,
  internalUpdateId,
  mergeInternalUpdates,
} from '../../engine/internal-updates/message.ts';

/** One compression window over these updates, merged per key as the internal-updates pipeline does. */
export function compressed(updates: readonly InternalUpdate[]): InternalUpdate[] {
  const byId = new Map<string, InternalUpdate>();
  for (const u of updates) {
    const older = byId.get(internalUpdateId(u));
    byId.set(internalUpdateId(u), older ? mergeInternalUpdates(older, u) : u);
  }
  return [...byId.values()];
}
