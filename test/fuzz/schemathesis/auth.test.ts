/**
 * Schemathesis against the authentication service (`streamfold service auth`, its Redis and a fake
 * Auth0). Requests carry a session cookie, so the session routes are reached past their 401 until
 * a generated `/logout` ends it.
 */
import { test } from '../../support/suite.ts';
import { type AuthStack, startAuthStack } from './auth-stack.ts';
import { checkService } from './harness.ts';

let auth: AuthStack;
test.before(async () => {
  auth = await startAuthStack();
});
test.after(() => auth?.stop());

test('auth: every generated request passes every check', async () => {
  await checkService(auth.service, 'service', [
    '--header',
    `Cookie: ${await auth.login()}`,
    '--header',
    'client-type: web',
  ]);
});

test.run();
