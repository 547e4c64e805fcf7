/** `streamfold rego …` through the real binary: output shapes, exit codes, usage errors. */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as assert from 'uvu/assert';
import { test } from '../../support/suite.ts';
import { conformanceCasesDir } from './helpers.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const CASES = conformanceCasesDir();

function cli(args: string[]) {
  const result = spawnSync(process.execPath, ['bin/streamfold.js', 'rego', ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '' },
    timeout: 60_000,
  });
  assert.not.ok(/^\s+at /m.test(result.stderr), `stack trace printed:\n${result.stderr}`);
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const dir = mkdtempSync(join(tmpdir(), 'streamfold-rego-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, text: string): string {
  const file = join(dir, name);
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, text);
  return file;
}

test('rego test examples/policies: a PASS line per test_* rule and the summary', () => {
  const { code, stdout } = cli(['test', 'examples/policies']);
  assert.is(code, 0, stdout);
  const lines = stdout.trim().split('\n');
  const results = lines.filter((l) => l.startsWith('data.policies.test_'));
  assert.ok(results.length >= 15, stdout);
  for (const line of results) assert.match(line, /^data\.policies\.test_\w+: PASS \(\d+\.\d+ms\)$/);
  assert.ok(
    results.some((l) => l.startsWith('data.policies.test_row_filter_keeps_live_projects_of_tenant:')),
  );
  assert.is(lines.at(-1), `PASS: ${results.length}/${results.length}`);
});

test('rego test: a false test and an erroring test fail the run with exit 1', () => {
  const path = write(
    'tests/t.rego',
    `package t
test_ok if true
test_false if false
test_value := false
test_error if 1 / 0 == 1
helper := 1
`,
  );
  const { code, stdout } = cli(['test', path]);
  assert.is(code, 1);
  assert.match(stdout, /^data\.t\.test_ok: PASS/m);
  assert.match(stdout, /^data\.t\.test_false: FAIL/m);
  assert.match(stdout, /^data\.t\.test_value: FAIL .*\(value false\)$/m);
  assert.match(stdout, /^data\.t\.test_error: ERROR .*: .*divide by zero/m);
  assert.not.match(stdout, /helper/);
  assert.match(stdout, /^PASS: 1\/4\nFAIL: 2\/4\nERROR: 1\/4$/m);
  const empty = write('empty/x.rego', 'package e\np := 1\n');
  const none = cli(['test', join(empty, '..')]);
  assert.is(none.code, 1);
  assert.match(none.stderr, /no test_\* rule found/);
});

test('rego eval: opa eval result shape with expressions, bindings, data files and input', () => {
  write('policy/p.rego', 'package p\nallow if input.user in data.p.admins\n');
  write('policy/p/data.json', JSON.stringify({ admins: ['ada'] }));
  const input = write('input.json', JSON.stringify({ user: 'ada' }));
  const { code, stdout } = cli([
    'eval',
    '-d',
    join(dir, 'policy'),
    '-i',
    input,
    'x := data.p.allow; data.p.admins',
  ]);
  assert.is(code, 0);
  assert.equal(JSON.parse(stdout), {
    result: [
      {
        expressions: [
          { value: true, text: 'x := data.p.allow', location: { row: 1, col: 1 } },
          { value: ['ada'], text: 'data.p.admins', location: { row: 1, col: 20 } },
        ],
        bindings: { x: true },
      },
    ],
  });
  // A false value is a result; an undefined query is {}.
  assert.equal(JSON.parse(cli(['eval', '1 > 2']).stdout).result[0].expressions[0].value, false);
  const undefinedQuery = cli(['eval', '-d', join(dir, 'policy'), 'data.p.allow']);
  assert.is(undefinedQuery.code, 0);
  assert.equal(JSON.parse(undefinedQuery.stdout), {});
  assert.is(cli(['eval', '--format', 'pretty', 'count([1, 2])']).stdout.trim(), '2');
});

test('rego eval: errors as {"errors":[…]} with code and location, exit 1', () => {
  const bad = write('bad/b.rego', 'package b\np if { x }\n');
  const { code, stdout } = cli(['eval', '-d', bad, 'data.b.p']);
  assert.is(code, 1);
  const [error] = JSON.parse(stdout).errors;
  assert.is(error.code, 'rego_unsafe_var_error');
  assert.equal(error.location, { file: bad, row: 2, col: 8 });
  const parse = cli(['eval', 'x := ']);
  assert.is(parse.code, 1);
  assert.is(JSON.parse(parse.stdout).errors[0].code, 'rego_parse_error');
  const v0 = write('v0/old.rego', 'package old\nallow { true }\n');
  assert.is(
    JSON.parse(cli(['eval', '-d', v0, '--v0-compatible', 'data.old.allow']).stdout).result[0].expressions[0]
      .value,
    true,
  );
  const missing = cli(['eval', '-d', join(dir, 'nope'), 'true']);
  assert.is(missing.code, 1);
  assert.match(missing.stderr, /nope: no such file or directory/);
});

test('rego partial: residual queries and the MongoDB filter of a row filter', () => {
  const input = write(
    'user.json',
    JSON.stringify({ user: { id: 'u1', groups: ['managers'], properties: { teams: ['north'] } } }),
  );
  const { code, stdout } = cli([
    'partial',
    '-d',
    'examples/policies',
    '-i',
    input,
    '--mongo',
    'data.policies.filter_orders',
  ]);
  assert.is(code, 0, stdout);
  assert.equal(JSON.parse(stdout), {
    queries: [
      ['equal(data.resources[_].customerId, "u1")'],
      ['internal.member_2(data.resources[_].team, ["north"])', 'gte(data.resources[_].total, 1000)'],
    ],
    mongo: {
      $or: [
        { $and: [{ customerId: { $eq: 'u1' } }] },
        { $and: [{ team: { $in: ['north'] } }, { total: { $gte: 1000 } }] },
      ],
    },
  });
  const negated = write('neg/n.rego', 'package n\nrows if { r := data.resources[_]; not r.hidden }\n');
  const refused = cli(['partial', '-d', negated, '--mongo', 'data.n.rows']);
  assert.is(refused.code, 1);
  assert.is(JSON.parse(refused.stdout).errors[0].code, 'row_filter_error');
  const unknowns = cli(['partial', '-d', negated, '--unknowns', 'data.rows', 'data.n.rows']);
  assert.is(unknowns.code, 0, unknowns.stdout);
});

test('rego eval and partial: integers beyond 2^53 print with all their digits, as opa does', () => {
  // 2^70 by integer arithmetic; JSON.stringify would print 1.1805916207174113e+21, a BigInt would throw.
  const json = cli(['eval', 'x := 1180591620717411303424 * 2']);
  assert.is(json.code, 0, json.stderr);
  assert.match(json.stdout, /"x": 2361183241434822606848\b/);
  assert.is(
    cli(['eval', '--format', 'pretty', '2 * 1180591620717411303424']).stdout.trim(),
    '2361183241434822606848',
  );
  const big = write('big/b.rego', 'package b\nrows if { data.resources[_].n > 1180591620717411303424 }\n');
  const partial = cli(['partial', '-d', big, '--mongo', 'data.b.rows']);
  assert.is(partial.code, 0, partial.stdout);
  assert.match(partial.stdout, /"\$gt": 1180591620717411303424\b/);
});

test('rego cases --format json: one line per case with its verdict', () => {
  const { code, stdout } = cli(['cases', '--format', 'json', join(CASES, 'aggregates')]);
  assert.is(code, 0);
  const lines = stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.ok(lines.length > 5);
  for (const line of lines) {
    assert.equal(Object.keys(line), ['file', 'note', 'result', 'error', 'pass']);
    assert.is(line.pass, true);
  }
  const failing = write(
    'cases/c.yaml',
    `cases:
  - note: wrong/expectation
    query: data.x.p = y
    modules: ["package x\\np := 1"]
    want_result: [{"y": 2}]
  - note: wrong/error
    query: data.x.p = y
    modules: ["package x\\np := 1 / 0"]
    strict_error: true
    want_result: []
`,
  );
  const run = cli(['cases', failing]);
  assert.is(run.code, 1);
  assert.match(run.stdout, /^FAIL .*c\.yaml#wrong\/expectation$/m);
  assert.match(run.stdout, /^FAIL .*c\.yaml#wrong\/error: eval_builtin_error: .*divide by zero/m);
  assert.match(run.stdout, /^0\/2 cases passed$/m);
});

test('rego usage errors exit 2: unknown subcommand, foreign options, missing arguments', () => {
  for (const args of [
    ['nope'],
    ['test', '--mongo', 'examples/policies'],
    ['eval'],
    ['partial', 'data.x'],
    ['eval', '--format', 'xml', 'true'],
  ]) {
    const { code, stderr } = cli(args);
    assert.is(code, 2, args.join(' '));
    assert.match(stderr, /^streamfold rego: /);
    assert.match(stderr, /Usage:/);
  }
});

test.run();
