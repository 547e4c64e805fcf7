/**
 * `units.parse` and `units.parse_bytes` as OPA documents them (topdown/parse_units.go,
 * parse_bytes.go): exact decimal amounts, compared exactly.
 */
import * as assert from 'node:assert/strict';
import { test } from '../../../support/suite.ts';
import { failure, value } from './call.ts';

/** `expr == expected` in Rego: exact equality, big integers included. */
const holds = (expr: string, expected: string) => value(`${expr} == ${expected}`);

test('units.parse: decimal amounts times the unit, exactly (no float drift)', () => {
  assert.equal(holds('units.parse("1.1Ki")', '1126.4'), true);
  assert.equal(holds('units.parse("-3.5E2m")', '-0.35'), true);
  assert.equal(holds('units.parse("100m")', '0.1'), true);
  assert.equal(holds('units.parse("0.3m")', '0.0003'), true);
  assert.equal(holds('units.parse("7.8E-1")', '0.78'), true);
  assert.equal(holds('units.parse("1e-2")', '0.01'), true);
  assert.equal(value('units.parse("1.1Ki")'), 1126.4);
});

test('units.parse: integers stay exact beyond 2^53', () => {
  assert.equal(holds('units.parse("10E")', '10000000000000000000'), true);
  assert.equal(holds('units.parse("10Ei")', '11529215046068469760'), true);
  assert.equal(holds('units.parse("100Pi")', '112589990684262400'), true);
  assert.equal(holds('units.parse("9007199254740993")', '9007199254740993'), true);
  assert.equal(holds('units.parse("9007199254740993")', '9007199254740992'), false);
  assert.equal(value('json.marshal(units.parse("1G"))'), '1000000000');
});

test('units.parse: m is milli and M mega; after the first letter any case; quotes removed', () => {
  assert.equal(holds('units.parse("10KI")', '10240'), true);
  assert.equal(holds('units.parse("\\"100TI\\"")', '109951162777600'), true);
  assert.equal(holds('units.parse("1M")', '1000000'), true);
  assert.equal(holds('units.parse("1mi")', '1048576'), true);
  assert.equal(holds('units.parse("2.5e3K")', '2500000'), true);
  assert.equal(holds('units.parse(".5K")', '500'), true);
  // More than 10 decimals are rounded to 10, as OPA prints rationals.
  assert.equal(value('units.parse("0.00000000001234m")'), 0);
  assert.equal(value('units.parse("0.123456789012345")'), 0.123456789);
});

test('units.parse: errors', () => {
  assert.equal(failure('units.parse("")'), 'eval_builtin_error: units.parse: no amount provided');
  assert.equal(failure('units.parse("K")'), 'eval_builtin_error: units.parse: no amount provided');
  assert.equal(
    failure('units.parse("10 K")'),
    'eval_builtin_error: units.parse: spaces not allowed in resource strings',
  );
  assert.equal(failure('units.parse("10Kb")'), 'eval_builtin_error: units.parse: unit Kb not recognized');
  assert.equal(
    failure('units.parse("1.2.3")'),
    'eval_builtin_error: units.parse: could not parse amount to a number',
  );
  assert.equal(failure('units.parse("1e1234567")'), 'eval_builtin_error: units.parse: exponent too large');
});

test('units.parse_bytes: exact amounts truncated to whole bytes', () => {
  assert.equal(holds('units.parse_bytes("1.1KiB")', '1126'), true);
  assert.equal(holds('units.parse_bytes("1e-2KB")', '10'), true);
  assert.equal(holds('units.parse_bytes("4.5e1GiB")', '48318382080'), true);
  assert.equal(holds('units.parse_bytes("10eib")', '11529215046068469760'), true);
  assert.equal(holds('units.parse_bytes("10EB")', '10000000000000000000'), true);
  assert.equal(holds('units.parse_bytes("\\"100TIB\\"")', '109951162777600'), true);
  assert.equal(holds('units.parse_bytes("0.9")', '0'), true);
  assert.equal(holds('units.parse_bytes("-1.5k")', '-1500'), true);
});

test('units.parse_bytes: errors', () => {
  assert.equal(
    failure('units.parse_bytes("GB")'),
    'eval_builtin_error: units.parse_bytes: no byte amount provided',
  );
  assert.equal(
    failure('units.parse_bytes("12xb")'),
    'eval_builtin_error: units.parse_bytes: byte unit xb not recognized',
  );
  assert.equal(
    failure('units.parse_bytes(".5.2")'),
    'eval_builtin_error: units.parse_bytes: could not parse byte amount to a number',
  );
  assert.equal(
    failure('units.parse_bytes("10e10000000EiB")'),
    'eval_builtin_error: units.parse_bytes: exponent too large',
  );
});

test.run();
