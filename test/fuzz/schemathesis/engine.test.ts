/**
 * Schemathesis against the engine's HTTP API: `streamfold run --embedded --serve` on the
 * single-view example (its events processed first, so items exist), its document at
 * `/documentation/json`.
 */
import * as assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePorts } from '../../support/process.ts';
import { test } from '../../support/suite.ts';
import { type RunningService, schemathesis, startStreamfold } from './harness.ts';

let engine: RunningService;

test.before(async () => {
  const [port] = await freePorts(1);
  const config = JSON.parse(readFileSync('examples/single-view/config.json', 'utf8'));
  config.server = { ...config.server, port };
  const dir = mkdtempSync(join(tmpdir(), 'fuzz-engine-'));
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
  engine = await startStreamfold(
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
});
test.after(() => engine?.stop());

test('engine: every generated request passes every check', async () => {
  const { base } = engine;
  const { requests } = await schemathesis(`${base}/documentation/json`, base).catch((error: Error) => {
    throw new Error(`${error.message}\n--- engine output ---\n${engine.output()}`);
  });
  assert.ok(requests > 0, 'no request was generated');
});

test.run();
