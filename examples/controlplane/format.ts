import type { DesiredStateAck, FeedbackEvent, NodeFeedback } from '../../engine/controlplane/index.ts';

/** One line per node: state, throughput, total lag and each partition's committed offset and lag. */
export function formatFeedback(event: FeedbackEvent): string {
  const head = `${event.engineId} #${event.sequence}${event.gated ? ' (gated: waiting for a desired state)' : ''}`;
  return [head, ...event.nodes.map((node) => `  ${formatNode(node)}`)].join('\n');
}

function formatNode(node: NodeFeedback): string {
  const lag = node.partitions.reduce((sum, p) => sum + p.lag, 0);
  const partitions = node.partitions.map(
    (p) => `${p.topic}/${p.partition}@${p.committedOffset} lag ${p.lag}`,
  );
  const state = node.state === 'NODE_STATE_PAUSED' ? 'paused ' : 'running';
  return `${node.node.padEnd(16)} ${state} ${node.messagesPerSecond.toFixed(1).padStart(9)} msg/s  lag ${lag}  [${partitions.join(', ')}]`;
}

export function formatAck(engineId: string, ack: DesiredStateAck): string {
  return ack.accepted
    ? `${engineId}: ${ack.requestId} applied`
    : `${engineId}: ${ack.requestId} rejected: ${ack.reason}`;
}
