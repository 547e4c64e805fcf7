import { fileURLToPath } from 'node:url';
import { MongoClient } from 'mongodb';
import type { Logger } from 'pino';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { systemClock } from '../../operators/clock.ts';
import { type RunningServer, readPackageInfo, serve } from '../kit/index.ts';
import { pingAuthService, requireGroup } from './access.ts';
import { createProviderApp } from './app.ts';
import { ChangeRelay, type ResendSummary, startResendLoop } from './change-relay.ts';
import { CredentialCipher } from './cipher.ts';
import type { ProviderConfig } from './config.ts';
import { kafkaChanges } from './kafka-changes.ts';
import { Providers } from './providers.ts';
import { ProviderRepository } from './repository.ts';
import { type RotationSummary, rotateKeys } from './rotate-keys.ts';

/** The group whose members may manage providers (the reference's name). */
export const PROVIDER_MANAGERS_GROUP = 'access_token_manager';

function connectRepository(config: ProviderConfig) {
  const client = new MongoClient(config.MONGODB_URL, {
    serverSelectionTimeoutMS: config.MONGODB_TIMEOUT_MS,
  });
  const db = client.db(config.PROVIDERS_DATABASE);
  return { client, repository: new ProviderRepository(db, config.PROVIDERS_COLLECTION) };
}

/**
 * Serves the provider API until `close()` (or SIGTERM/SIGINT when `handleSignals`). MongoDB may
 * be down at start: the index is created on the first successful attempt, requests answer 503
 * meanwhile.
 */
export async function startProviderService(
  config: ProviderConfig,
  options: { logger: Logger; handleSignals?: boolean },
): Promise<ProviderServer> {
  const { logger } = options;
  const { client, repository } = connectRepository(config);
  await repository
    .ensureIndexes()
    .catch((err: unknown) => logger.warn({ err }, 'providers index not created yet'));

  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'streamfold_' });
  const publisher = config.PROVIDERS_CHANGES_TOPIC
    ? kafkaChanges({
        topic: config.PROVIDERS_CHANGES_TOPIC,
        properties: { ...config.KAFKA_PROPERTIES, 'bootstrap.servers': config.KAFKA_BROKERS! },
        ackTimeoutMs: config.KAFKA_ACK_TIMEOUT_MS,
        logger,
        registry,
      })
    : undefined;
  const relay = publisher && new ChangeRelay({ repository, publisher, logger, registry });
  const providers = new Providers({ repository, cipher: new CredentialCipher(config.encryptionKeys), relay });
  const stopResending = relay
    ? startResendLoop({
        resend: (cutoff) => relay.resendPending(cutoff),
        clock: systemClock,
        everyMs: config.PROVIDERS_RESEND_SECONDS * 1000,
        graceMs: config.KAFKA_ACK_TIMEOUT_MS,
        logger,
      })
    : async () => {};

  const app = createProviderApp({
    providers,
    access: requireGroup({
      authServiceUrl: config.AUTH_SERVICE_URL,
      group: PROVIDER_MANAGERS_GROUP,
      cacheMs: config.AUTH_CACHE_SECONDS * 1000,
      timeoutMs: config.AUTH_TIMEOUT_MS,
      clientTypeHeader: config.CLIENTTYPE_HEADER_KEY,
      defaultClientType: config.AUTH_CLIENT_TYPE,
    }),
    defaultConsoleVersion: config.PROVIDERS_DEFAULT_CONSOLE_VERSION,
    ready: () => repository.ping().then(() => true),
    dependencies: {
      mongodb: () => repository.ping(),
      authService: () => pingAuthService(config.AUTH_SERVICE_URL, config.AUTH_TIMEOUT_MS),
    },
    info: readPackageInfo(fileURLToPath(new URL('.', import.meta.url))),
    logger,
    registry,
  });
  const server = await serve(app, {
    port: config.HTTP_PORT,
    logger,
    delayShutdownSeconds: config.DELAY_SHUTDOWN_SECONDS,
    handleSignals: options.handleSignals ?? true,
    onShutdown: [stopResending, () => publisher?.close(), () => client.close()],
  });
  return Object.assign(server, {
    resendPending: (cutoff = new Date()) =>
      relay ? relay.resendPending(cutoff) : Promise.resolve({ delivered: 0, left: 0 }),
  });
}

/** The running service; `resendPending` runs a resend round now (tests, operators' scripts). */
export interface ProviderServer extends RunningServer {
  resendPending(cutoff?: Date): Promise<ResendSummary>;
}

/** `--rotate-keys`: seals every stored secret with the first key of PROVIDERS_ENCRYPTION_KEY. */
export async function rotateStoredKeys(config: ProviderConfig, logger: Logger): Promise<RotationSummary> {
  const { client, repository } = connectRepository(config);
  try {
    return await rotateKeys(repository, new CredentialCipher(config.encryptionKeys), logger);
  } finally {
    await client.close();
  }
}
