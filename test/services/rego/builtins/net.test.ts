/**
 * `net.cidr_merge` as OPA documents it (topdown/cidr.go): CIDRs merged into the fewest, a bare
 * IPv4 address with Go's classful default mask, a bare IPv6 address refused.
 */
import * as assert from 'node:assert/strict';
import { test } from '../../../support/suite.ts';
import { failure, value } from './call.ts';

test('net.cidr_merge: contained ranges go, halves of a network merge, IPv4 and IPv6 apart', () => {
  assert.deepEqual(value('net.cidr_merge(["192.0.128.0/24", "192.0.129.0/24"])'), ['192.0.128.0/23']);
  assert.deepEqual(value('net.cidr_merge(["192.0.128.0/24", "192.0.128.0/24"])'), ['192.0.128.0/24']);
  assert.deepEqual(value('net.cidr_merge(["192.0.128.0/24", "0.0.0.0/0"])'), ['0.0.0.0/0']);
  // Adjacent but not halves of one network: 192.0.129.0/24 and 192.0.130.0/24 stay apart.
  assert.deepEqual(value('net.cidr_merge({"192.0.130.0/24", "192.0.129.0/24"})'), [
    '192.0.129.0/24',
    '192.0.130.0/24',
  ]);
  assert.deepEqual(
    value(
      'net.cidr_merge(["192.0.128.2/31", "10.1.0.0/16", "10.0.0.0/8", "2601:600::/33", "2601:600:8000::/33"])',
    ),
    ['10.0.0.0/8', '192.0.128.2/31', '2601:600::/32'],
  );
  assert.deepEqual(value('net.cidr_merge([])'), []);
});

test('net.cidr_merge: IPv6 prefixes, and a bare IPv6 address is refused', () => {
  const ip6 = '2601:600:8a80:207e:a57d:7567:e2c9:e7b3';
  assert.deepEqual(value(`net.cidr_merge(["${ip6}/128"])`), [`${ip6}/128`]);
  assert.deepEqual(value(`net.cidr_merge(["${ip6}/128", "${ip6}/128"])`), [`${ip6}/128`]);
  assert.deepEqual(value(`net.cidr_merge(["${ip6}/64", "${ip6}/128"])`), ['2601:600:8a80:207e::/64']);
  assert.equal(
    failure(`net.cidr_merge(["${ip6}"])`),
    'eval_builtin_error: net.cidr_merge: IPv6 invalid: needs prefix length',
  );
  assert.equal(
    failure(`net.cidr_merge(["${ip6}", "${ip6}"])`),
    'eval_builtin_error: net.cidr_merge: IPv6 invalid: needs prefix length',
  );
  assert.equal(value('net.cidr_merge(["::1"])'), undefined);
});

test('net.cidr_merge: a bare IPv4 address takes its class mask (/8, /16, /24), as Go DefaultMask', () => {
  assert.deepEqual(value('net.cidr_merge(["192.0.128.0", "192.0.129.0"])'), ['192.0.128.0/23']);
  assert.deepEqual(value('net.cidr_merge(["192.0.2.112", "192.0.2.116/31"])'), ['192.0.2.0/24']);
  assert.deepEqual(value('net.cidr_merge(["10.1.2.3", "10.200.0.0/16"])'), ['10.0.0.0/8']);
  // Alone, it is printed as Go prints the parsed network: the address unmasked.
  assert.deepEqual(value('net.cidr_merge(["172.16.5.4"])'), ['172.16.5.4/16']);
  assert.deepEqual(value('net.cidr_merge(["192.0.3.1", "192.0.4.0/24"])'), ['192.0.3.0/24', '192.0.4.0/24']);
  assert.deepEqual(value('net.cidr_merge(["192.0.3.1", "10.0.0.0/8"])'), ['10.0.0.0/8', '192.0.3.1/24']);
});

test('net.cidr_merge: errors', () => {
  assert.equal(
    failure('net.cidr_merge(["300.0.0.0/8"])'),
    'eval_builtin_error: net.cidr_merge: invalid CIDR address: 300.0.0.0/8',
  );
  assert.equal(failure('net.cidr_merge([1])'), 'eval_builtin_error: net.cidr_merge: element must be string');
  assert.equal(
    failure('net.cidr_merge("10.0.0.0/8")'),
    'eval_builtin_error: net.cidr_merge: operand must be an array',
  );
});

test.run();
