/**
 * `server.properties` of one node of the local cluster: every node is a combined broker and KRaft
 * controller on loopback (no ZooKeeper), as Kafka's `kafka-storage.sh` / `kafka-server-start.sh`
 * would be given. Settings a user's cluster would have, except those that only make sense across
 * machines: internal topics replicated across all nodes (a factor above the node count would hang
 * consumer groups), no auto-created topics, no initial rebalance delay.
 */
export interface NodeEndpoints {
  readonly id: number;
  readonly brokerPort: number;
  readonly controllerPort: number;
}

export interface NodeConfigOptions {
  readonly node: NodeEndpoints;
  /** Every node of the cluster, this one included: the static controller quorum. */
  readonly voters: readonly NodeEndpoints[];
  readonly logDir: string;
  /** Extra or overriding broker properties. */
  readonly overrides?: Readonly<Record<string, string>>;
}

export const HOST = '127.0.0.1';

export function nodeConfig(options: NodeConfigOptions): string {
  const { node, voters, logDir } = options;
  const replicas = String(voters.length);
  // Two of three acknowledge an `acks=all` write: one node may fail without losing a write.
  const minInsync = String(Math.min(2, voters.length));
  const properties: Record<string, string> = {
    'process.roles': 'broker,controller',
    'node.id': String(node.id),
    'controller.quorum.voters': voters.map((v) => `${v.id}@${HOST}:${v.controllerPort}`).join(','),
    listeners: `PLAINTEXT://${HOST}:${node.brokerPort},CONTROLLER://${HOST}:${node.controllerPort}`,
    'advertised.listeners': `PLAINTEXT://${HOST}:${node.brokerPort}`,
    'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT',
    'controller.listener.names': 'CONTROLLER',
    'inter.broker.listener.name': 'PLAINTEXT',
    'log.dirs': logDir,
    'auto.create.topics.enable': 'false',
    'default.replication.factor': replicas,
    'min.insync.replicas': minInsync,
    'offsets.topic.replication.factor': replicas,
    'offsets.topic.num.partitions': '1',
    'transaction.state.log.replication.factor': replicas,
    'transaction.state.log.min.isr': minInsync,
    'transaction.state.log.num.partitions': '1',
    'share.coordinator.state.topic.replication.factor': replicas,
    'share.coordinator.state.topic.min.isr': minInsync,
    'group.initial.rebalance.delay.ms': '0',
    // A failed node is noticed in seconds, not the default 9 s, so failover tests stay short.
    'broker.session.timeout.ms': '3000',
    'broker.heartbeat.interval.ms': '500',
    ...options.overrides,
  };
  return `${Object.entries(properties)
    .map(([key, value]) => `${key}=${value}`)
    .join('\n')}\n`;
}
