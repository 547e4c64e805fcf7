import * as assert from 'node:assert/strict';
import { compile } from '../../../services/rego/index.ts';
import { test } from '../../support/suite.ts';
import { errorOf, solutions } from './helpers.ts';

/** The value of `expr` in an empty policy, or undefined. */
function call(expr: string, strict = false): unknown {
  return solutions({}, `x := ${expr}`, { strictBuiltinErrors: strict })[0]?.x;
}

test('type errors make the call undefined, or fail the query with eval_type_error when strict', () => {
  assert.equal(call('array.concat([1], {})'), undefined);
  const err = errorOf(() => call('array.concat([1], {})', true));
  assert.equal(err.code, 'eval_type_error');
  assert.equal(err.detail, 'array.concat: operand 2 must be array but got object');
  assert.deepEqual(err.location, { file: 'query', row: 1, col: 6 });
  assert.equal(
    errorOf(() => call('count(1)', true)).detail,
    'count: operand 1 must be one of {array, object, set, string} but got number',
  );
});

test('yaml: marshal and unmarshal round-trip sets as lists; a bad document is a builtin error', () => {
  assert.deepEqual(call('yaml.unmarshal(yaml.marshal({"a": {2, 1}, "b": [null, true]}))'), {
    a: [1, 2],
    b: [null, true],
  });
  assert.equal(call('yaml.marshal({"k": "v"})'), 'k: v\n');
  assert.equal(call('yaml.is_valid("a: [1")'), false);
  assert.equal(call('yaml.is_valid(1)'), false);
  assert.equal(call('yaml.unmarshal("a: [1")'), undefined);
  assert.equal(errorOf(() => call('yaml.unmarshal("a: [1")', true)).code, 'eval_builtin_error');
});

test('undefined arguments make the call undefined', () => {
  assert.equal(call('upper(input.missing)'), undefined);
});

test('numbers: arithmetic, division by zero, rem on floats, rounding, ranges', () => {
  assert.equal(call('7 / 2'), 3.5);
  assert.equal(call('1 / 0'), undefined);
  assert.equal(errorOf(() => call('1 / 0', true)).code, 'eval_builtin_error');
  assert.match(errorOf(() => call('1.5 % 1', true)).detail, /modulo on floating-point number/);
  assert.equal(call('round(-2.5)'), -3);
  assert.deepEqual(call('numbers.range(3, 1)'), [3, 2, 1]);
  assert.deepEqual(call('{1, 2, 3} - {2}'), [1, 3]);
});

test('aggregates over arrays and sets; min/max of empty are undefined', () => {
  assert.equal(call('sum([1, 2, 3.5])'), 6.5);
  assert.equal(call('count("héllo")'), 5);
  assert.equal(call('max([])'), undefined);
  assert.deepEqual(call('sort({3, 1, 2})'), [1, 2, 3]);
});

test('strings: sprintf, format_int, trim family, substring, indexof, split, replace_n', () => {
  assert.equal(call('sprintf("%s-%d-%v-%.2f", ["a", 5, [1, "b"], 1.234])'), 'a-5-[1, "b"]-1.23');
  assert.equal(call('format_int(255, 16)'), 'ff');
  assert.equal(call('trim_left("xxabc", "x")'), 'abc');
  assert.equal(call('trim_suffix("file.rego", ".rego")'), 'file');
  assert.equal(call('substring("héllo", 1, 3)'), 'éll');
  assert.equal(call('substring("abc", 1, -1)'), 'bc');
  assert.equal(call('indexof("héllo", "l")'), 2);
  assert.deepEqual(call('split("a,b", ",")'), ['a', 'b']);
  assert.equal(call('strings.replace_n({"a": "1", "b": "2"}, "abc")'), '12c');
  assert.equal(call('concat("/", {"b", "a"})'), 'a/b');
});

test('regex and glob', () => {
  assert.equal(call('regex.match("^a+$", "aaa")'), true);
  assert.deepEqual(call('regex.find_n("[0-9]", "a1b2c3", 2)'), ['1', '2']);
  assert.equal(call('regex.replace("a-b-c", "-", "+")'), 'a+b+c');
  assert.equal(call('regex.match("(", "x")'), undefined);
  assert.equal(call('glob.match("*.example.com", ["."], "api.example.com")'), true);
  assert.equal(call('glob.match("*.example.com", ["."], "a.b.example.com")'), false);
  assert.equal(call('glob.match("**.example.com", ["."], "a.b.example.com")'), true);
});

test('objects: get with paths, union deep-merges, remove and filter', () => {
  assert.equal(call('object.get({"a": {"b": 1}}, ["a", "b"], 0)'), 1);
  assert.equal(call('object.get({"a": {}}, ["a", "b"], 0)'), 0);
  assert.deepEqual(call('object.union({"a": {"b": 1}}, {"a": {"c": 2}})'), { a: { b: 1, c: 2 } });
  assert.deepEqual(call('object.remove({"a": 1, "b": 2}, ["a"])'), { b: 2 });
  assert.deepEqual(call('json.filter({"a": {"b": 1, "c": 2}}, ["a/b"])'), { a: { b: 1 } });
});

test('object.subset and strings.any_prefix_match / any_suffix_match', () => {
  assert.equal(call('object.subset({"a": {"b": 1, "c": 2}}, {"a": {"b": 1}})'), true);
  assert.equal(call('object.subset({"a": 1}, {"a": 2})'), false);
  assert.equal(call('object.subset([1, 2, 3, 4], [2, 3])'), true);
  assert.equal(call('object.subset([1, 2, 3], [1, 3])'), false);
  assert.equal(call('object.subset({1, 2}, {2})'), true);
  assert.equal(call('strings.any_prefix_match(["/api/v1", "/x"], "/api")'), true);
  assert.equal(call('strings.any_suffix_match("file.rego", [".json", ".yaml"])'), false);
});

test('calls with the wrong number of arguments are a compile error', () => {
  assert.match(
    errorOf(() => compile({ 'a.rego': 'package t\np := count()' })).detail,
    /count: too few arguments/,
  );
  assert.match(
    errorOf(() => compile({ 'b.rego': 'package t\np if count([], 1, 2)' })).detail,
    /too many arguments/,
  );
});

test('encodings round-trip', () => {
  assert.equal(call('base64.decode(base64.encode("hé"))'), 'hé');
  assert.equal(call('base64url.encode_no_pad("??")'), 'Pz8');
  assert.deepEqual(call('json.unmarshal(json.marshal({"a": [1, true, null]}))'), { a: [1, true, null] });
  assert.equal(call('urlquery.encode("a b&c")'), 'a+b%26c');
  assert.equal(call('hex.decode("6869")'), 'hi');
});

test('types, bits, net, semver, time', () => {
  assert.equal(call('type_name({1})'), 'set');
  assert.equal(call('is_number("1")'), false);
  assert.equal(call('bits.lsh(1, 4)'), 16);
  assert.equal(call('net.cidr_contains("10.0.0.0/8", "10.1.2.3")'), true);
  assert.equal(call('net.cidr_contains("10.0.0.0/8", "11.0.0.1")'), false);
  assert.equal(call('semver.compare("1.2.3", "1.10.0")'), -1);
  assert.equal(call('time.parse_rfc3339_ns("1970-01-01T00:00:01Z")'), 1e9);
  assert.equal(call('time.parse_duration_ns("1m30s")'), 90e9);
  assert.equal(call('time.weekday(0)'), 'Thursday');
});

test('time.format, time.parse_ns and time.diff with Go layouts and zones', () => {
  const ns = 1707580800000000000; // 2024-02-10T16:00:00Z
  assert.equal(call(`time.format(${ns})`), '2024-02-10T16:00:00Z');
  assert.equal(call(`time.format([${ns}, "America/New_York"])`), '2024-02-10T11:00:00-05:00');
  assert.equal(call(`time.format([${ns}, "UTC", "Mon Jan _2 15:04:05 2006"])`), 'Sat Feb 10 16:00:00 2024');
  assert.equal(
    call(`time.format([${ns}, "Europe/Rome", "2006-01-02 03:04PM -0700"])`),
    '2024-02-10 05:00PM +0100',
  );
  assert.equal(call('time.parse_ns("2006-01-02T15:04:05Z07:00", "2024-02-10T17:00:00+01:00")'), ns);
  assert.equal(call('time.parse_ns("Jan 2 2006 3:04PM", "Feb 10 2024 4:00PM")'), ns);
  assert.equal(call('time.parse_ns("2006-01-02", "10/02/2024")'), undefined);
  assert.deepEqual(
    call(
      'time.diff(time.parse_rfc3339_ns("2021-03-01T12:30:15Z"), time.parse_rfc3339_ns("2020-01-31T00:00:00Z"))',
    ),
    [1, 1, 1, 12, 30, 15],
  );
  assert.equal(errorOf(() => call(`time.clock([${ns}, "Mars/Olympus"])`, true)).code, 'eval_builtin_error');
});

test('time.now_ns is one instant for the whole evaluation', () => {
  const [s] = solutions({}, 'a := time.now_ns(); b := [time.now_ns() | some _ in numbers.range(1, 2000)]');
  assert.ok(Math.abs((s!.a as number) - Date.now() * 1e6) < 60e9);
  assert.ok((s!.b as number[]).every((n) => n === s!.a));
});

test('hashes and HMAC', () => {
  assert.equal(
    call('crypto.sha256("abc")'),
    'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
  );
  assert.equal(call('crypto.hmac.equal("a", "a")'), true);
});

test('walk is a relation: one solution per node', () => {
  assert.deepEqual(
    solutions({}, 'walk({"a": [1]}, [p, v])').map((s) => s.p),
    [[], ['a'], ['a', 0]],
  );
});

test.run();
