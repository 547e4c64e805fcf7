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

/**
 * librdkafka's other names of the forced properties. librdkafka applies properties in their
 * order, and a spread keeps a key where it first was: a user's `request.required.acks` after
 * their `acks` would otherwise come after the forced `acks=all` and win (with idempotence on,
 * librdkafka then refuses to start the producer).
 */
const ALIASES: Readonly<Record<string, readonly string[]>> = {
  acks: ['request.required.acks'],
};

type Properties = Record<string, string | number | boolean>;

/** `properties` without anything `forced` names (under any of its names), then `forced`, last. */
function withForced(properties: Properties, forced: Properties): Properties {
  const names = new Set(Object.keys(forced).flatMap((name) => [name, ...(ALIASES[name] ?? [])]));
  return {
    ...Object.fromEntries(Object.entries(properties).filter(([name]) => !names.has(name))),
    ...forced,
  };
}

export function consumerProperties(properties: ClientProperties, groupId: string): Properties {
  return withForced(
    { ...CONSUMER_DEFAULTS, ...properties },
    { 'group.id': groupId, ...FORCED_CONSUMER_PROPERTIES },
  );
}

export function producerProperties(properties: ClientProperties): Properties {
  return withForced({ ...properties }, FORCED_PRODUCER_PROPERTIES);
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

/**
 * The client's properties with librdkafka's statistics on, which the watchdog reads
 * (./watchdog.ts): at its interval unless the user set `statistics.interval.ms` (0 turns them
 * off, and with them the watchdog).
 */
export function withStatistics(
  properties: Properties,
  watchdog: { readonly statisticsIntervalMs: number } | false | undefined,
): Properties {
  if (!watchdog || properties['statistics.interval.ms'] !== undefined) return properties;
  return { ...properties, 'statistics.interval.ms': watchdog.statisticsIntervalMs };
}

export function bootstrapServers(properties: ClientProperties): string {
  return String(
    properties['bootstrap.servers'] ?? properties['metadata.broker.list'] ?? '(no bootstrap.servers)',
  );
}
