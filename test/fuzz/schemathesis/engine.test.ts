/**
 * Schemathesis against the engine's HTTP API: `streamfold run --embedded --serve` on the
 * single-view example (its events processed first, so items exist), its document at
 * `/documentation/json`.
 */
import { test } from '../../support/suite.ts';
import { startEngine } from '../streamfold-services.ts';
import { checkService, type RunningService } from './harness.ts';

let engine: RunningService;

test.before(async () => {
  engine = await startEngine();
});
test.after(() => engine?.stop());

test('engine: every generated request passes every check', async () => {
  await checkService(engine, 'engine');
});

test.run();
