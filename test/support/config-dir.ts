/** A configuration file in a directory of its own, as the services read it (a path and a file name). */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The file name `configDir` writes: `SERVICE_CONFIG_FILE_NAME` of the services. */
export const CONFIG_FILE_NAME = 'config.json';

/** A new temporary directory (named from `prefix`) holding `config` as JSON in `config.json`. */
export function configDir(prefix: string, config: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  writeFileSync(join(dir, CONFIG_FILE_NAME), JSON.stringify(config));
  return dir;
}
