import type { ClientProperties } from '../types.ts';

/**
 * Properties the engine's delivery guarantee depends on (design/engine.md §7). They are applied
 * after the user's, so a configuration cannot turn them back: offsets are committed only for
 * acknowledged work (auto-commit would commit what was merely read), and the producer neither
 * loses (`acks=all`) nor duplicates on retry (idempotence) what it writes.
 */
export const FORCED_CONSUMER_PROPERTIES = { 'enable.auto.commit': false } as const;
export const FORCED_PRODUCER_PROPERTIES = { 'enable.idempotence': true, acks: 'all' } as const;

/** Defaults a user may override: a new consumer group starts at the beginning of its topics. */
const CONSUMER_DEFAULTS = { 'auto.offset.reset': 'earliest' } as const;

export function consumerProperties(
  properties: ClientProperties,
  groupId: string,
): Record<string, string | number | boolean> {
  return { ...CONSUMER_DEFAULTS, ...properties, 'group.id': groupId, ...FORCED_CONSUMER_PROPERTIES };
}

export function producerProperties(properties: ClientProperties): Record<string, string | number | boolean> {
  return { ...properties, ...FORCED_PRODUCER_PROPERTIES };
}

/**
 * librdkafka's topic-level properties. node-rdkafka always installs its own default topic
 * configuration, which would silently reset these when given only with the global properties.
 */
const TOPIC_LEVEL = new Set([
  'acks',
  'request.required.acks',
  'request.timeout.ms',
  'message.timeout.ms',
  'delivery.timeout.ms',
  'partitioner',
  'compression.codec',
  'compression.type',
  'compression.level',
  'auto.offset.reset',
]);

export function topicProperties(properties: ClientProperties): Record<string, string | number | boolean> {
  return Object.fromEntries(Object.entries(properties).filter(([name]) => TOPIC_LEVEL.has(name)));
}

export function bootstrapServers(properties: ClientProperties): string {
  return String(
    properties['bootstrap.servers'] ?? properties['metadata.broker.list'] ?? '(no bootstrap.servers)',
  );
}
