import { createServiceLogger, EnvError, stopOnSignal } from '../kit/index.ts';
import type { ServiceEntry } from '../registry.ts';
import { readConfig } from './config.ts';
import { rotateStoredKeys, startProviderService } from './start.ts';

export const service: ServiceEntry = {
  summary: 'provider API: git, secret-manager and CI/CD providers of a tenant, credentials encrypted',
  flags: {
    'rotate-keys': 'seal every stored secret with the first key of PROVIDERS_ENCRYPTION_KEY, then exit',
  },
  async run(env, io, flags) {
    let config: ReturnType<typeof readConfig>;
    try {
      config = readConfig(env);
    } catch (error) {
      if (!(error instanceof EnvError)) throw error;
      io.err(`streamfold service provider: ${error.message}`);
      return 1;
    }
    const logger = createServiceLogger({ service: 'provider', level: config.LOG_LEVEL });
    if (flags?.has('rotate-keys')) {
      try {
        const { resealed, unchanged } = await rotateStoredKeys(config, logger);
        io.out(`re-encrypted ${resealed} provider(s); ${unchanged} already under the current key`);
        return 0;
      } catch (error) {
        io.err(`streamfold service provider --rotate-keys: ${(error as Error).message}`);
        return 1;
      }
    }
    const server = await startProviderService(config, { logger, handleSignals: false });
    return stopOnSignal(() => server.close(), logger);
  },
};
