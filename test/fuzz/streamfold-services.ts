/** The engine and the standalone sidecar as the fuzz suites start them (Schemathesis, hostile transport). */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FIXTURES } from '../services/sidecar/harness.ts';
import { freePorts } from '../support/process.ts';
import { type RunningService, startStreamfold } from './schemathesis/harness.ts';

/** `streamfold run --embedded --serve` on the single-view example, its events processed. */
export async function startEngine(): Promise<RunningService> {
  const [port] = await freePorts(1);
  const config = JSON.parse(readFileSync('examples/single-view/config.json', 'utf8'));
  config.server = { ...config.server, port };
  const dir = mkdtempSync(join(tmpdir(), 'fuzz-engine-'));
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
  return startStreamfold(
    [
      'run',
      join(dir, 'config.json'),
      '--embedded',
      '--serve',
      '--input',
      'examples/single-view/events.jsonl',
    ],
    { HTTP_PORT: String(port) },
  );
}

/**
 * `streamfold service sidecar` standalone, on the sidecar suites' policies and the permissions of
 * `schemathesis/fixtures/sidecar-permissions.json`; `env` adds variables (MongoDB).
 */
export function startSidecarStandalone(env: Record<string, string> = {}): Promise<RunningService> {
  return startStreamfold(
    ['service', 'sidecar'],
    {
      STANDALONE: 'true',
      OPA_MODULES_DIRECTORY: `${FIXTURES}policies`,
      API_PERMISSIONS_FILE_PATH: 'test/fuzz/schemathesis/fixtures/sidecar-permissions.json',
      ...env,
    },
    '/-/rbac-ready',
  );
}
