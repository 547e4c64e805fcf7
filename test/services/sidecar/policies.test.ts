/**
 * The policies directory as Rönd deployments ship it: `test_*` rules (`opa test`'s convention)
 * next to the policies, compiled with them and usable as policies themselves.
 */
import * as assert from 'node:assert/strict';
import { loadPolicies } from '../../../services/sidecar/policies.ts';
import { test } from '../../support/suite.ts';
import { FIXTURES } from './harness.ts';

// What `opa test` runs in Rönd's CI: every test_* rule of the shipped policies holds.
test('every test_* rule of the fixture policies holds, with `with input as`', async () => {
  const policies = await loadPolicies(`${FIXTURES}policies`);
  for (const name of ['test_allow_admins', 'test_deny_others'])
    assert.equal(policies.decide(name, {}).allowed, true, name);
  // and they are not vacuous: the rule they test answers differently without the override
  assert.equal(policies.decide('allow_admins', { user: { groups: ['guest'] } }).allowed, false);
});

test.run();
