/**
 * `to_number`, `strings.replace_n` and `format_int` as OPA documents them (topdown/casts.go, Go's
 * strings.NewReplacer), beyond the shared conformance pack.
 */
import * as assert from 'node:assert/strict';
import { test } from '../../../support/suite.ts';
import { failure, value } from './call.ts';

test('to_number: strings Go reads as non-finite are a type error, in any case and sign', () => {
  for (const s of ['nan', 'NaN', '-nan', 'inf', '+inf', '-inf', 'iNf', 'Infinity', '-Infinity', 'INFINITY']) {
    assert.equal(
      failure(`to_number(${JSON.stringify(s)})`),
      'eval_type_error: to_number: operand 1 must be valid number string but got string',
      s,
    );
    assert.equal(value(`to_number(${JSON.stringify(s)})`), undefined, s);
  }
});

test('to_number: numbers, null and booleans; bad and out-of-range strings are builtin errors', () => {
  assert.equal(value('to_number("-1.5e2")'), -150);
  assert.equal(value('to_number(".5")'), 0.5);
  assert.equal(value('to_number(null)'), 0);
  assert.equal(value('to_number(true)'), 1);
  assert.equal(
    failure('to_number("broken")'),
    'eval_builtin_error: to_number: strconv.ParseFloat: parsing "broken": invalid syntax',
  );
  assert.equal(
    failure('to_number("infinite")'),
    'eval_builtin_error: to_number: strconv.ParseFloat: parsing "infinite": invalid syntax',
  );
  assert.equal(
    failure('to_number("1e400")'),
    'eval_builtin_error: to_number: strconv.ParseFloat: parsing "1e400": value out of range',
  );
  assert.equal(
    failure('to_number([])'),
    'eval_type_error: to_number: operand 1 must be one of {null, boolean, number, string} but got array',
  );
});

test('replace_n: the pairs in sorted key order, the first that matches at a position wins', () => {
  // "anotherinfo" sorts before "info": it wins although "info" matches inside it.
  assert.equal(value('strings.replace_n({"info": "X", "anotherinfo": "Y"}, "anotherinfo")'), 'Y');
  // "a" sorts first but does not match at 0; "bba" does.
  assert.equal(value('strings.replace_n({"a": "YY", "bba": "bX"}, "bbab")'), 'bXb');
  assert.equal(
    value('strings.replace_n({"a": "Xa", "ab": "X", "ba": "bYa", "aaa": "X"}, "aaaaab")'),
    'XaXaXaXaXab',
  );
});

test('replace_n: replaced text is never scanned again', () => {
  assert.equal(value('strings.replace_n({"a": "b", "b": "a"}, "abba")'), 'baab');
  assert.equal(value('strings.replace_n({"ab": "b", "b": "Y"}, "baaabbbba")'), 'YaabYYYa');
  assert.equal(value('strings.replace_n({"aab": "Y", "a": "", "b": ""}, "bbaab")'), '');
});

test('replace_n: the empty key inserts at every position, then a key at that position still applies', () => {
  assert.equal(value('strings.replace_n({"": "X"}, "")'), 'X');
  assert.equal(value('strings.replace_n({"": "X"}, "ab")'), 'XaXbX');
  assert.equal(value('strings.replace_n({"": "X", "a": "Y"}, "ab")'), 'XYXbX');
  assert.equal(value('strings.replace_n({"": "-", "é": "e"}, "aéb")'), '-a-e-b-');
});

test('replace_n: keys and values must be strings', () => {
  assert.equal(
    failure('strings.replace_n({1: "a"}, "1")'),
    'eval_type_error: strings.replace_n: operand 1 non-string key found in pattern object',
  );
  assert.equal(
    failure('strings.replace_n({"a": 1}, "a")'),
    'eval_type_error: strings.replace_n: operand 1 non-string value found in pattern object',
  );
  assert.equal(value('strings.replace_n({}, "same")'), 'same');
});

test('format_int: truncated toward zero, every digit beyond 2^53 (OPA formats a big.Int)', () => {
  assert.equal(value('format_int(-3.9, 10)'), '-3');
  assert.equal(value('format_int(255.5, 16)'), 'ff');
  assert.equal(value('format_int(-5, 2)'), '-101');
  // 2^70, an exact double: JS's toString would print 1.1805916207174113e+21.
  assert.equal(value('format_int(1180591620717411303424, 10)'), '1180591620717411303424');
  // 2^53 + 1, an exact integer only as a BigInt: a double would print 9007199254740992.
  assert.equal(value('format_int(9007199254740993, 10)'), '9007199254740993');
  assert.equal(value('format_int(1180591620717411303424, 16)'), '400000000000000000');
  assert.equal(
    failure('format_int(1, 3)'),
    'eval_builtin_error: format_int: operand 2 must be one of {2, 8, 10, 16}',
  );
});

test.run();
