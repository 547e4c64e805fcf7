import pino from 'pino';
import { EnvError, stopOnSignal } from '../kit/index.ts';
import type { ServiceEntry } from '../registry.ts';
import { type NotificationConfig, readConfig, serviceConfigurationJsonSchema } from './config.ts';
import { startNotificationService } from './start.ts';

export const service: ServiceEntry = {
  summary:
    'notification manager: email, SMS, voice, push and messaging-app notifications for platform events',
  configSchema: serviceConfigurationJsonSchema,
  async run(env, io) {
    let config: NotificationConfig;
    try {
      config = readConfig(env);
    } catch (error) {
      if (!(error instanceof EnvError)) throw error;
      io.err(`streamfold service notification: ${error.message}`);
      return 1;
    }
    const logger = pino({ level: config.LOG_LEVEL, base: { service: 'notification' } });
    const server = await startNotificationService(config, { logger, handleSignals: false });
    return stopOnSignal(() => server.close(), logger);
  },
};
