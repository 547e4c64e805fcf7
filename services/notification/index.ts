import type { Logger } from 'pino';
import { createServiceLogger, EnvError, type RunningServer, stopOnSignal } from '../kit/index.ts';
import type { ServiceEntry } from '../registry.ts';
import { readConfig, serviceConfigurationJsonSchema } from './config.ts';
import { startNotificationService } from './start.ts';

export const service: ServiceEntry = {
  summary:
    'notification manager: email, SMS, voice, push and messaging-app notifications for platform events',
  configSchema: serviceConfigurationJsonSchema,
  async run(env, io) {
    let server: RunningServer & { readonly failed: Promise<Error> };
    let logger: Logger;
    try {
      const config = readConfig(env);
      logger = createServiceLogger({ service: 'notification', level: config.LOG_LEVEL });
      server = await startNotificationService(config, { logger, handleSignals: false });
    } catch (error) {
      // A bad variable, configuration file or custom handler module.
      if (!(error instanceof EnvError)) throw error;
      io.err(`streamfold service notification: ${error.message}`);
      return 1;
    }
    // A failed Kafka intake: shut down and exit 1, so the orchestrator starts a fresh consumer.
    return stopOnSignal(() => server.close(), logger, server.failed);
  },
};
