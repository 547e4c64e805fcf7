/** The conformance runner judges a case as OPA's runner does. */
import * as assert from 'node:assert/strict';
import { runCase } from '../../../../services/rego/conformance/run-case.ts';
import { test } from '../../../support/suite.ts';

const failing = {
  note: 'merge/bare ipv6',
  query: 'x := net.cidr_merge(["::1"])',
  strict_error: true,
};

// OPA test/cases: want_error is found in the error's text, `code: message`.
test('want_error matches the error text with or without its code', async () => {
  const withCode = 'eval_builtin_error: net.cidr_merge: IPv6 invalid: needs prefix length';
  assert.equal((await runCase({ ...failing, want_error: withCode })).pass, true);
  assert.equal((await runCase({ ...failing, want_error: 'IPv6 invalid' })).pass, true);
  assert.equal((await runCase({ ...failing, want_error: 'eval_type_error: net.cidr_merge' })).pass, false);
  assert.equal((await runCase({ ...failing, want_error_code: 'eval_builtin_error' })).pass, true);
  assert.equal((await runCase({ ...failing, want_result: [] })).pass, false);
});

test.run();
