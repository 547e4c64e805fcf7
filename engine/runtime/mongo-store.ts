import { MongoStore } from '../store/index.ts';
import type { CompiledConfig } from './compile.ts';

/** The MongoStore of a configuration (`processor.persistence`), its URL Secret already resolved. */
export function createMongoStore(compiled: CompiledConfig, url: string): MongoStore {
  const persistence = compiled.config.processor.persistence.config;
  return new MongoStore({
    ...compiled.layout,
    url,
    database: persistence.database ?? null,
    appName: persistence.appName ?? null,
  });
}
