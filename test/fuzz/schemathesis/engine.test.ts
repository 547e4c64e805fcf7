/**
 * Schemathesis against the engine's HTTP API: `streamfold run --embedded --serve` on the
 * single-view example (its events processed first, so items exist), its document at
 * `/documentation/json`.
 */
import * as assert from 'node:assert/strict';
import { test } from '../../support/suite.ts';
import { startEngine } from '../streamfold-services.ts';
import { type RunningService, schemathesis } from './harness.ts';

let engine: RunningService;

test.before(async () => {
  engine = await startEngine();
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
