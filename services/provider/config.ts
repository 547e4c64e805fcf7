import { z } from 'zod';
import { EnvError, envInteger, envJsonObject, envPort, parseEnv } from '../kit/index.ts';
import { parseKeyList } from './cipher.ts';

const ENV = z.object({
  HTTP_PORT: envPort().default(3000),
  MONGODB_URL: z
    .string()
    .regex(/^mongodb(\+srv)?:\/\//, { error: 'expected a mongodb:// or mongodb+srv:// URL' }),
  /** Default: the database named in MONGODB_URL. */
  PROVIDERS_DATABASE: z.string().min(1).optional(),
  PROVIDERS_COLLECTION: z.string().min(1).default('providers'),
  /** Checked by parseKeyList, which never prints a key (parseEnv would echo this name's value). */
  PROVIDERS_ENCRYPTION_KEY: z.string(),
  AUTH_SERVICE_URL: z.url({ protocol: /^https?$/ }),
  AUTH_CACHE_SECONDS: envInteger(0, 3600).default(10),
  AUTH_TIMEOUT_MS: envInteger(1, 60_000).default(5000),
  CLIENTTYPE_HEADER_KEY: z.string().min(1).default('client-type'),
  /** The client type asked for when the caller sends no client-type header. */
  AUTH_CLIENT_TYPE: z.string().min(1).optional(),
  MONGODB_TIMEOUT_MS: envInteger(1, 120_000).default(5000),
  PROVIDERS_CHANGES_TOPIC: z.string().min(1).optional(),
  /** librdkafka `bootstrap.servers`; required with PROVIDERS_CHANGES_TOPIC. */
  KAFKA_BROKERS: z.string().min(1).optional(),
  /** Extra librdkafka properties as a JSON object (security, client.id, …). */
  KAFKA_PROPERTIES: envJsonObject(),
  KAFKA_ACK_TIMEOUT_MS: envInteger(1, 120_000).default(10_000),
  /** How often changes left pending (broker down, process stopped) are produced again; 0: only at start. */
  PROVIDERS_RESEND_SECONDS: envInteger(0, 86_400).default(30),
  /** The Console version assumed for requests without a `console-version` header. */
  PROVIDERS_DEFAULT_CONSOLE_VERSION: z
    .string()
    .regex(/^\d+\.\d+(\.\d+)?$/, { error: 'expected a version like 10.8 or 10.7.2' })
    .default('10.8'),
  DELAY_SHUTDOWN_SECONDS: envInteger(0, 3600).default(0),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export type ProviderConfig = Omit<z.output<typeof ENV>, 'PROVIDERS_ENCRYPTION_KEY'> & {
  readonly encryptionKeys: Buffer[];
};

/** The service's environment; an {@link EnvError} names every bad variable, never a key. */
export function readConfig(env: Readonly<Record<string, string | undefined>>): ProviderConfig {
  const { PROVIDERS_ENCRYPTION_KEY, ...config } = parseEnv(ENV, env);
  const { keys, problems } = parseKeyList(PROVIDERS_ENCRYPTION_KEY);
  const all = problems.map((problem) => `PROVIDERS_ENCRYPTION_KEY: ${problem}`);
  if (config.PROVIDERS_CHANGES_TOPIC && !config.KAFKA_BROKERS) {
    all.push('KAFKA_BROKERS: required with PROVIDERS_CHANGES_TOPIC, not set');
  }
  if (all.length > 0) throw new EnvError(all);
  return { ...config, encryptionKeys: keys };
}
