import pino from 'pino';
import { EnvError } from '../kit/index.ts';
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
    return new Promise<number>((resolve) => {
      const stop = (signal: NodeJS.Signals) => {
        process.off('SIGTERM', stop);
        process.off('SIGINT', stop);
        logger.info({ signal }, 'signal received');
        server.close().then(
          () => resolve(0),
          (err: unknown) => {
            logger.error({ err }, 'shutdown failed');
            resolve(1);
          },
        );
      };
      process.once('SIGTERM', stop);
      process.once('SIGINT', stop);
    });
  },
};
