/**
 * Schemathesis against the sidecar's standalone API (`streamfold service sidecar` with
 * `STANDALONE=true`, its bindings and roles in the MongoDB stand-in), its document built from the
 * permissions it loaded. The permissions are the sidecar suites' routes without the one whose
 * policy fails on purpose (a 500 by design). Requests come from a user with groups.
 *
 * One check is off here: `unsupported_method` wants 405 for a method a path does not declare,
 * and the sidecar answers Rönd's 403 "no route" to any request no permission matches (the
 * reference wins over platform.md, services/sidecar/README.md).
 */
import { mongoEnv } from '../../services/sidecar/harness.ts';
import { type MongoFixture, startMongo } from '../../support/mongo.ts';
import { test } from '../../support/suite.ts';
import { startSidecarStandalone } from '../streamfold-services.ts';
import { checkService, type RunningService } from './harness.ts';

let mongo: MongoFixture;
let sidecar: RunningService;

test.before(async () => {
  mongo = await startMongo();
  const url = new URL(mongo.url);
  url.pathname = `/${mongo.database}`;
  sidecar = await startSidecarStandalone(mongoEnv(url.toString()));
});
test.after(async () => {
  await sidecar?.stop();
  await mongo?.stop();
});

test('sidecar standalone: every generated request passes every check', async () => {
  await checkService(sidecar, 'sidecar', [
    '--header',
    'miauserid: fuzz-user',
    '--header',
    'miausergroups: admin,readers',
    '--exclude-checks',
    'unsupported_method',
  ]);
});

test.run();
