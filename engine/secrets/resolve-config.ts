import { brokerConsumerFields } from '../config/consumers.ts';
import { ConfigError } from '../config/errors.ts';
import type { Config } from '../config/index.ts';
import { internalConsumerFields } from '../config/internal-updates.ts';
import { formatJsonPath, type JsonPath } from '../config/json-path.ts';
import { brokerProducerFields } from '../config/producer.ts';
import type { Secret } from '../config/secret.ts';
import { SecretError } from './errors.ts';
import { type Environment, type ReadTextFile, resolveSecret } from './resolve.ts';

/** Broker client properties, every Secret resolved. */
export type ClientProperties = Record<string, string>;

/**
 * Every Secret of a configuration, resolved. The property maps hold only the client properties
 * of each part (named fields like `topic` or `commitIntervalMs` are not in them); a client
 * combines its connection's properties with its own.
 */
export interface ResolvedSecrets {
  connections: Record<string, ClientProperties>;
  consumers: Record<string, ClientProperties>;
  producer: ClientProperties;
  internalConsumer: ClientProperties;
  internalProducer: ClientProperties;
  persistenceUrl: string;
}

export interface ResolveOptions {
  env?: Environment;
  readFile?: ReadTextFile;
}

// Named fields of the configuration parts that also carry client properties.
const CONSUMER_FIELDS = new Set(Object.keys(brokerConsumerFields));
const PRODUCER_FIELDS = new Set(Object.keys(brokerProducerFields));
const INTERNAL_CONSUMER_FIELDS = new Set(Object.keys(internalConsumerFields));
const NO_FIELDS = new Set<string>();
const INTERNAL: JsonPath = ['processor', 'internalUpdates', 'config'];

interface Pending {
  errors: SecretError[];
  options: ResolveOptions;
}

async function resolveOne(secret: Secret, path: JsonPath, pending: Pending): Promise<string> {
  try {
    return await resolveSecret(secret, formatJsonPath(path), pending.options.env, pending.options.readFile);
  } catch (error) {
    if (!(error instanceof SecretError)) throw error;
    pending.errors.push(error);
    return '';
  }
}

async function resolveProperties(
  properties: Readonly<Record<string, unknown>>,
  named: ReadonlySet<string>,
  path: JsonPath,
  pending: Pending,
): Promise<ClientProperties> {
  const entries = Object.entries(properties).filter(([key]) => !named.has(key));
  const values = await Promise.all(
    entries.map(([key, secret]) => resolveOne(secret as Secret, [...path, key], pending)),
  );
  return Object.fromEntries(entries.map(([key], index) => [key, values[index]!]));
}

/** Resolves the properties of several named parts; `pathOf` gives where each part's properties live. */
async function resolveEach(
  parts: Readonly<Record<string, Readonly<Record<string, unknown>>>>,
  named: ReadonlySet<string>,
  pathOf: (name: string) => JsonPath,
  pending: Pending,
): Promise<Record<string, ClientProperties>> {
  const names = Object.keys(parts);
  const resolved = await Promise.all(
    names.map((name) => resolveProperties(parts[name]!, named, pathOf(name), pending)),
  );
  return Object.fromEntries(names.map((name, index) => [name, resolved[index]!]));
}

/**
 * Resolves every Secret of `config`. All failures are collected and thrown together as a
 * ConfigError whose issues carry the config path and the reason (never a value).
 */
export async function resolveSecrets(config: Config, options: ResolveOptions = {}): Promise<ResolvedSecrets> {
  const pending: Pending = { errors: [], options };
  const internal = config.processor.internalUpdates.config;
  const connectionProperties = Object.fromEntries(
    Object.entries(config.connections).map(([name, connection]) => [name, connection.config]),
  );
  const [connections, consumers, producer, internalConsumer, internalProducer, persistenceUrl] =
    await Promise.all([
      resolveEach(connectionProperties, NO_FIELDS, (name) => ['connections', name, 'config'], pending),
      resolveEach(config.consumers.config, CONSUMER_FIELDS, (name) => ['consumers', 'config', name], pending),
      resolveProperties(config.producer.config, PRODUCER_FIELDS, ['producer', 'config'], pending),
      resolveProperties(internal.consumer, INTERNAL_CONSUMER_FIELDS, [...INTERNAL, 'consumer'], pending),
      resolveProperties(internal.producer, NO_FIELDS, [...INTERNAL, 'producer'], pending),
      resolveOne(
        config.processor.persistence.config.url,
        ['processor', 'persistence', 'config', 'url'],
        pending,
      ),
    ]);
  if (pending.errors.length > 0) {
    throw new ConfigError(pending.errors.map((error) => ({ path: error.path, rule: error.reason })));
  }
  return { connections, consumers, producer, internalConsumer, internalProducer, persistenceUrl };
}
