/**
 * Property: any text given to the Rego compiler either compiles or fails with a `RegoError` that
 * carries a source location, within a time bound: no hang, no other exception (a stack
 * overflow was one, before the parser bounded how deep terms nest).
 */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { compile, RegoError } from '../../services/rego/index.ts';
import { MAX_NESTING } from '../../services/rego/parser.ts';
import { test } from '../support/suite.ts';
import { anyText, checkProperty, mutated, tokenSoup } from './property.ts';

const TIME_BOUND_MS = 2000;

function compilesOrLocatedError(source: string): void {
  const started = performance.now();
  try {
    compile({ 'fuzz.rego': source });
  } catch (error) {
    if (!(error instanceof RegoError)) throw new Error(`not a RegoError: ${String(error)}`);
    assert.ok(error.location, `RegoError without a location: ${error.message}`);
  }
  const ms = performance.now() - started;
  assert.ok(ms < TIME_BOUND_MS, `took ${Math.round(ms)} ms`);
}

const VOCABULARY = [
  'package p',
  'import rego.v1',
  'import data.x',
  'import input as i',
  'allow',
  'x',
  'y',
  '_',
  'input',
  'data',
  ':=',
  '=',
  '==',
  '!=',
  '<',
  '>=',
  '+',
  '-',
  '*',
  '/',
  '%',
  '&',
  '|',
  '(',
  ')',
  '[',
  ']',
  '{',
  '}',
  ',',
  ';',
  ':',
  '.',
  'if',
  'contains',
  'else',
  'default',
  'not',
  'some',
  'every',
  'in',
  'with',
  'as',
  'true',
  'null',
  '1',
  '-2.5e3',
  '18446744073709551616',
  '"s"',
  '`raw`',
  '"\\u00e9"',
  '# comment\n',
  '\n',
  'count(x)',
  'sum',
  'f(a)',
  'set()',
  'print(x)',
  'walk(',
  'future.keywords',
];

const policies = [
  readFileSync('services/sidecar/example/policies.rego', 'utf8'),
  readFileSync('test/services/sidecar/fixtures/policies/policies.rego', 'utf8'),
  readFileSync('test/services/sidecar/fixtures/policies/v1.rego', 'utf8'),
];

test('any text: compiles or a located RegoError', () => {
  checkProperty('rego: any text', 3000, anyText(), compilesOrLocatedError);
});

test('token soup after a package line: compiles or a located RegoError', () => {
  checkProperty('rego: token soup', 1500, tokenSoup(VOCABULARY), (body: string) =>
    compilesOrLocatedError(`package fuzz\n${body}`),
  );
});

test('real policies with random edits: compile or a located RegoError', () => {
  checkProperty('rego: mutated policies', 1000, mutated(policies), compilesOrLocatedError);
});

test('deep nesting of every kind: compile or a located RegoError', () => {
  const openers = ['(', '[', '{', '{"k": ', '-', '[y | y := ', 'abs(', 'every z in [1] { '];
  checkProperty(
    'rego: deep nesting',
    60,
    fc.constantFrom(...openers),
    fc.integer({ min: 1, max: 5000 }),
    (opener: string, depth: number) => compilesOrLocatedError(`package fuzz\nx := ${opener.repeat(depth)}1`),
  );
});

// Found by the nesting property: each of these overflowed the stack (a RangeError) before the
// parser bounded nesting; at the bound they still compile.
const DEEP = 20_000;
const regressions: Record<string, string> = {
  parentheses: `x := ${'('.repeat(DEEP)}1${')'.repeat(DEEP)}`,
  arrays: `x := ${'['.repeat(DEEP)}1${']'.repeat(DEEP)}`,
  'unterminated arrays': `x := ${'['.repeat(DEEP)}`,
  'unary minus': `x := ${'-'.repeat(DEEP)}y\ny := 1`,
  'an operator chain': `x := 1${' + 1'.repeat(DEEP)}`,
  'every bodies': `x if { ${'every y in [1] { '.repeat(DEEP)}true${' }'.repeat(DEEP)} }`,
  'else branches': `x := 1 if false ${'else := 1 if false '.repeat(DEEP)}`,
};

test('regressions: nesting past the bound is a located rego_parse_error', () => {
  for (const [what, rule] of Object.entries(regressions)) {
    assert.throws(
      () => compile({ 'deep.rego': `package deep\n${rule}` }),
      (error: unknown) =>
        error instanceof RegoError && error.code === 'rego_parse_error' && error.location !== undefined,
      what,
    );
  }
});

test('nesting up to the bound still compiles and evaluates', () => {
  const depth = MAX_NESTING - 2;
  const policy = compile({ 'deep.rego': `package deep\nx := ${'['.repeat(depth)}1${']'.repeat(depth)}` });
  assert.equal(policy.eval('x = data.deep.x').length, 1);
});

test.run();
