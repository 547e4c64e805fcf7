/**
 * Schemathesis against the authentication service (`streamfold service auth`, its Redis and a fake
 * Auth0). Requests carry a session cookie, so the session routes are reached past their 401 until
 * a generated `/logout` ends it.
 */
import * as assert from 'node:assert/strict';
import { test } from '../../support/suite.ts';
import { type AuthStack, startAuthStack } from './auth-stack.ts';
import { schemathesis } from './harness.ts';

let auth: AuthStack;
test.before(async () => {
  auth = await startAuthStack();
});
test.after(() => auth?.stop());

test('auth: every generated request passes every check', async () => {
  const { base } = auth.service;
  const { requests } = await schemathesis(`${base}/documentation/json`, base, [
    '--header',
    `Cookie: ${await auth.login()}`,
    '--header',
    'client-type: web',
  ]).catch((error: Error) => {
    throw new Error(`${error.message}\n--- service output ---\n${auth.service.output()}`);
  });
  assert.ok(requests > 0, 'no request was generated');
});

test.run();
