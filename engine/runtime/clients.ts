import type { ClientProperties } from '../../operators/broker/types.ts';
import type { Config } from '../config/index.ts';
import type { ResolvedSecrets } from '../secrets/index.ts';
import type { EngineClients } from './engine.ts';

/** Reserved consumer property naming its dead-letter topic; never passed to the Kafka client. */
export const DEAD_LETTER_PROPERTY = 'deadLetterTopic';

function withoutReserved(properties: ClientProperties): ClientProperties {
  const { [DEAD_LETTER_PROPERTY]: _reserved, ...rest } = properties;
  return rest;
}

/**
 * Each Kafka client's properties: those of its connection, overridden by its own (spec: the
 * extra properties of a consumer or producer are passed to the client library).
 */
export function engineClients(config: Config, secrets: ResolvedSecrets): EngineClients {
  const connection = (name: string): ClientProperties => secrets.connections[name] ?? {};
  const internal = config.processor.internalUpdates.config;
  return {
    consumer: (node) => {
      const consumer = config.consumers.config[node];
      return withoutReserved({ ...connection(consumer?.connectionName ?? ''), ...secrets.consumers[node] });
    },
    producer: { ...connection(config.producer.config.connectionName), ...secrets.producer },
    internalConsumer: { ...connection(internal.connectionName), ...secrets.internalConsumer },
    internalProducer: { ...connection(internal.connectionName), ...secrets.internalProducer },
  };
}

/**
 * Dead-letter topic per node, from the reserved consumer property (`engine.md` §2). A topic
 * name is no credential, so a plain string is expected; embedded mode honours it too.
 */
export function deadLetterTopics(config: Config): Map<string, string> {
  return new Map(
    Object.entries(config.consumers.config).flatMap(([node, consumer]) => {
      const topic = (consumer as Record<string, unknown>)[DEAD_LETTER_PROPERTY];
      return typeof topic === 'string' && topic !== '' ? [[node, topic] as const] : [];
    }),
  );
}

/**
 * The topics read or written through one connection: those a broker built on that connection
 * can check at startup (another connection may be another cluster).
 */
export function topicsOnConnection(config: Config, connectionName: string): string[] {
  const internal = config.processor.internalUpdates.config;
  return [
    ...Object.values(config.consumers.config)
      .filter((c) => c.connectionName === connectionName)
      .map((c) => c.topic),
    ...(config.producer.config.connectionName === connectionName
      ? [config.producer.config.topic, ...deadLetterTopics(config).values()]
      : []),
    ...(internal.connectionName === connectionName ? [internal.topic] : []),
  ];
}
