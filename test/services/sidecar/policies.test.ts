/**
 * The policies directory as Rönd deployments ship it: `test_*` rules (`opa test`'s convention)
 * next to the policies, compiled with them and usable as policies themselves.
 */
import * as assert from 'node:assert/strict';
import pino from 'pino';
import { mongoBuiltins } from '../../../services/sidecar/mongo-builtins.ts';
import { loadPolicies } from '../../../services/sidecar/policies.ts';
import { test } from '../../support/suite.ts';
import { FIXTURES } from './harness.ts';

// What `opa test` runs in Rönd's CI: every test_* rule of the shipped policies holds.
test('every test_* rule of the fixture policies holds, with `with input as`', async () => {
  // find_one/find_many are always there, as in Rönd; without MongoDB their calls are undefined.
  const policies = await loadPolicies(
    `${FIXTURES}policies`,
    mongoBuiltins(undefined, pino({ level: 'silent' })),
  );
  for (const name of ['test_allow_admins', 'test_deny_others'])
    assert.equal((await policies.decide(name, {})).allowed, true, name);
  // and they are not vacuous: the rule they test answers differently without the override
  assert.equal((await policies.decide('allow_admins', { user: { groups: ['guest'] } })).allowed, false);
});

test.run();
