/**
 * `time.*` as OPA documents it (topdown/time.go): exact int64 nanoseconds, its range errors, Go's
 * named layouts, and the zone errors of Go's LoadLocation.
 */
import * as assert from 'node:assert/strict';
import { test } from '../../../support/suite.ts';
import { failure, value } from './call.ts';

const NS = '1670006453141828752'; // 2022-12-02T18:40:53.141828752Z, beyond 2^53

test('time.format keeps every nanosecond of a timestamp beyond 2^53', () => {
  assert.equal(value(`time.format(${NS})`), '2022-12-02T18:40:53.141828752Z');
  assert.equal(value(`time.format([${NS}, "Asia/Kolkata"])`), '2022-12-03T00:10:53.141828752+05:30');
  assert.equal(value('time.format(-1)'), '1969-12-31T23:59:59.999999999Z');
  const parsed = 'time.parse_rfc3339_ns("2024-02-05T11:37:54.123456789Z")';
  assert.equal(value(`${parsed} == 1707133074123456789`), true);
  assert.equal(value(`time.format(${parsed})`), '2024-02-05T11:37:54.123456789Z');
});

test('time.format: Go layouts, and the named ones OPA knows (RFC1123Z, RFC822, …)', () => {
  const at = (layout: string) => value(`time.format([${NS}, "Asia/Kolkata", ${JSON.stringify(layout)}])`);
  assert.equal(at('Mon Jan 02 15:04:05 -0700 2006'), 'Sat Dec 03 00:10:53 +0530 2022');
  assert.equal(at('RFC1123Z'), 'Sat, 03 Dec 2022 00:10:53 +0530');
  assert.equal(at('RFC822Z'), '03 Dec 22 00:10 +0530');
  assert.equal(at('RFC3339'), '2022-12-03T00:10:53+05:30');
  assert.equal(at('RFC3339Nano'), '2022-12-03T00:10:53.141828752+05:30');
  assert.equal(at('ANSIC'), 'Sat Dec  3 00:10:53 2022');
  assert.equal(at('RubyDate'), 'Sat Dec 03 00:10:53 +0530 2022');
  assert.equal(value(`time.format([${NS}, "America/New_York", "RFC850"])`), 'Friday, 02-Dec-22 13:40:53 EST');
  assert.equal(value(`time.format([${NS}, "America/New_York", "UnixDate"])`), 'Fri Dec  2 13:40:53 EST 2022');
  // Go's Kitchen is no name OPA knows: its layout is written out.
  assert.equal(at('3:04PM'), '12:10AM');
  assert.equal(value(`time.format([${NS}, "UTC", "RFC822"])`), '02 Dec 22 18:40 UTC');
  // Fractions of a second: any run of 0s (fixed) or 9s (trailing zeros dropped), after . or ,
  assert.equal(value(`time.format([${NS}, "UTC", "15:04:05,000000"])`), '18:40:53,141828');
  assert.equal(value(`time.format([${NS}, "UTC", "05.00"])`), '53.14');
  assert.equal(value('time.format([1500000000, "UTC", "05.999999999"])'), '01.5');
});

test('time.parse_ns takes the named layouts too, exactly', () => {
  assert.equal(value('time.parse_ns("RFC822", "02 Jan 06 15:04 UTC")'), 1136214240000000000);
  assert.equal(value('time.parse_ns("RFC3339", "2022-12-02T18:40:53Z") == 1670006453000000000'), true);
  assert.equal(
    value(
      'time.parse_ns("2006-01-02T15:04:05.000000000Z07:00", "2024-02-05T11:37:54.123456789Z") == 1707133074123456789',
    ),
    true,
  );
});

test('a timestamp that is no exact int64 is "timestamp too big"', () => {
  assert.equal(
    failure('time.format(1582977600 * 10e12)'),
    'eval_builtin_error: time.format: timestamp too big',
  );
  assert.equal(
    failure('time.weekday(1582977600 * 1000 * 1000 * 1000 * 1000)'),
    'eval_builtin_error: time.weekday: timestamp too big',
  );
  assert.equal(failure('time.date(9223372036854775808)'), 'eval_builtin_error: time.date: timestamp too big');
  assert.equal(failure('time.clock(1.5)'), 'eval_builtin_error: time.clock: timestamp too big');
  assert.deepEqual(value('time.date(-9223372036854775808)'), [1677, 9, 21]);
  assert.deepEqual(value('time.clock(9223372036854775807)'), [23, 47, 16]);
});

test('a result outside int64 nanoseconds is "time outside of valid range"', () => {
  assert.equal(
    failure('time.add_date(0, 2262, 1, 1)'),
    'eval_builtin_error: time.add_date: time outside of valid range',
  );
  assert.equal(
    failure('time.parse_rfc3339_ns("2262-04-11T23:47:16.854775808Z")'),
    'eval_builtin_error: time.parse_rfc3339_ns: time outside of valid range',
  );
  assert.equal(
    failure('time.parse_ns("2006-01-02", "1677-09-21")'),
    'eval_builtin_error: time.parse_ns: time outside of valid range',
  );
  assert.equal(value('time.parse_rfc3339_ns("2262-04-11T23:47:16.854775807Z") == 9223372036854775807'), true);
  assert.equal(value('time.add_date(1585852421593912000, 3, 9, 12) == 1705257221593912000'), true);
});

test('zones: "", "UTC" and IANA names are known; an unknown name is its own error', () => {
  assert.equal(value('time.format([0, "UTC"])'), '1970-01-01T00:00:00Z');
  assert.equal(value('time.format([0, ""])'), '1970-01-01T00:00:00Z');
  // A timestamp out of range is that error, never a zone one.
  assert.equal(
    failure('time.format([1582977600 * 10e12, "UTC"])'),
    'eval_builtin_error: time.format: timestamp too big',
  );
  assert.deepEqual(value('time.clock([0, "America/New_York"])'), [19, 0, 0]);
  assert.equal(
    failure('time.format([0, "Mars/Olympus"])'),
    'eval_builtin_error: time.format: unknown time zone Mars/Olympus',
  );
  assert.equal(
    failure('time.weekday([0, "Nowhere"])'),
    'eval_builtin_error: time.weekday: unknown time zone Nowhere',
  );
});

test('operands: OPA type errors for the shape of an instant', () => {
  const shape = 'must be either number (ns) or [number (ns), string (tz)]';
  assert.equal(
    failure('time.format("now")'),
    `eval_type_error: time.format: operand 1 ${shape} but got string`,
  );
  assert.equal(failure('time.format([])'), `eval_type_error: time.format: operand 1 ${shape} but got array`);
  assert.equal(
    failure('time.format(["0"])'),
    'eval_type_error: time.format: operand 1 must be number but got string',
  );
  assert.equal(
    failure('time.format([0, 1])'),
    'eval_type_error: time.format: operand 1 must be string but got number',
  );
});

test('time.diff reads the second instant in the first one zone', () => {
  assert.deepEqual(
    value('time.diff(time.parse_ns("2006-01-02", "2020-02-02"), time.parse_ns("2006-01-02", "2020-03-01"))'),
    [0, 0, 28, 0, 0, 0],
  );
  assert.deepEqual(
    value('time.diff(time.parse_ns("2006-01-02", "2004-02-29"), time.parse_ns("2006-01-02", "2005-03-01"))'),
    [1, 0, 1, 0, 0, 0],
  );
  // 23:30 UTC and 00:30 the next day in Shanghai (UTC+8) are 1 hour apart, read in UTC.
  assert.deepEqual(
    value(
      'time.diff([time.parse_rfc3339_ns("2024-01-01T23:30:00Z"), "UTC"], [time.parse_rfc3339_ns("2024-01-02T00:30:00Z"), "Asia/Shanghai"])',
    ),
    [0, 0, 0, 1, 0, 0],
  );
});

// Go's time.ParseDuration, which OPA calls.
test('time.parse_duration_ns: exact int64 nanoseconds and Go errors', () => {
  assert.equal(value('time.parse_duration_ns("1.5h")'), 5_400_000_000_000);
  assert.equal(value('time.parse_duration_ns("-1m30.5s")'), -90_500_000_000);
  assert.equal(value('time.parse_duration_ns(".5µs")'), 500);
  assert.equal(value('time.parse_duration_ns("2562047h47m16.854775807s") == 9223372036854775807'), true);
  assert.equal(value('time.parse_duration_ns("-2562047h47m16.854775808s") == -9223372036854775808'), true);
  assert.equal(
    failure('time.parse_duration_ns("2562047h47m16.854775808s")'),
    'eval_builtin_error: time.parse_duration_ns: time: invalid duration "2562047h47m16.854775808s"',
  );
  assert.equal(
    failure('time.parse_duration_ns("1h1")'),
    'eval_builtin_error: time.parse_duration_ns: time: missing unit in duration "1h1"',
  );
  assert.equal(
    failure('time.parse_duration_ns("3d")'),
    'eval_builtin_error: time.parse_duration_ns: time: unknown unit "d" in duration "3d"',
  );
  assert.equal(
    failure('time.parse_duration_ns(".s")'),
    'eval_builtin_error: time.parse_duration_ns: time: invalid duration ".s"',
  );
});

test.run();
