import { fieldOf } from '../../operators/record/json.ts';
import { UndecodableMessage } from './proto.ts';

export type DesiredNodeState = 'running' | 'paused';

export type DesiredStateResult =
  | {
      readonly accepted: true;
      readonly requestId: string;
      readonly changes: ReadonlyMap<string, DesiredNodeState>;
    }
  | { readonly accepted: false; readonly requestId: string; readonly reason: string };

const STATES: Readonly<Record<string, DesiredNodeState>> = {
  NODE_STATE_RUNNING: 'running',
  NODE_STATE_PAUSED: 'paused',
};

/**
 * Checks a decoded `DesiredState` against the engine's nodes. All or nothing: one bad entry
 * rejects the message, so a control plane never sees half of its intent applied.
 */
export function validateDesiredState(message: unknown, nodes: ReadonlySet<string>): DesiredStateResult {
  if (message instanceof UndecodableMessage)
    return rejected('', `not a valid DesiredState message (${message.reason})`);
  if (typeof message !== 'object' || message === null) return rejected('', 'not a DesiredState message');
  const { requestId: rawRequestId, nodes: entries } = message as { requestId?: unknown; nodes?: unknown };
  const requestId = typeof rawRequestId === 'string' ? rawRequestId : '';
  if (!Array.isArray(entries)) return rejected(requestId, '`nodes` is not a list');

  const changes = new Map<string, DesiredNodeState>();
  for (const [index, entry] of entries.entries()) {
    const { node, state } = (entry ?? {}) as { node?: unknown; state?: unknown };
    if (typeof node !== 'string' || node === '')
      return rejected(requestId, `nodes[${index}]: the node id is empty`);
    if (!nodes.has(node)) {
      return rejected(requestId, `nodes[${index}]: unknown node "${node}" (known: ${[...nodes].join(', ')})`);
    }
    if (changes.has(node)) return rejected(requestId, `nodes[${index}]: node "${node}" is listed twice`);
    const desired = typeof state === 'string' ? fieldOf(STATES, state) : undefined;
    if (!desired) {
      return rejected(
        requestId,
        `nodes[${index}]: node "${node}" has state ${JSON.stringify(state)}, expected NODE_STATE_RUNNING or NODE_STATE_PAUSED`,
      );
    }
    changes.set(node, desired);
  }
  return { accepted: true, requestId, changes };
}

function rejected(requestId: string, reason: string): DesiredStateResult {
  return { accepted: false, requestId, reason };
}
