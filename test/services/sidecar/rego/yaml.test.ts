import * as assert from 'node:assert/strict';
import { test } from 'uvu';
import { runCase } from '../../../../services/sidecar/rego/conformance/run-case.ts';
import { parseYamlDocuments } from '../../../../services/sidecar/rego/conformance/yaml.ts';

test('the case-file YAML subset: mappings, sequences of mappings, literal blocks, flow, quotes', () => {
  const [doc] = parseYamlDocuments(`---
cases:
  - note: "a/b: c"
    query: data.x.p = x
    modules:
      - |
        package x

        p := 1
    data: { }
    input: {"a": [1, "two", null], b: true}
    want_result:
      - x: 1
      - x:
          - - foo
          - 'it''s'
    strict_error: true
    n: -1.5e3
    s: "tab\\there \\x41 \\U0001F600"
`);
  assert.deepEqual(doc, {
    cases: [
      {
        note: 'a/b: c',
        query: 'data.x.p = x',
        modules: ['package x\n\np := 1\n'],
        data: {},
        input: { a: [1, 'two', null], b: true },
        want_result: [{ x: 1 }, { x: [['foo'], "it's"] }],
        strict_error: true,
        n: -1500,
        s: 'tab\there A 😀',
      },
    ],
  });
});

test('a case is judged by its result set, or by its error code and message', () => {
  const base = { note: 't', query: 'x := data.t.p', modules: ['package t\np := {1, 2}'] };
  assert.equal(runCase({ ...base, want_result: [{ x: [1, 2] }] }).pass, true);
  assert.equal(runCase({ ...base, want_result: [{ x: [1, 3] }] }).pass, false);
  assert.equal(runCase({ ...base, want_result: [] }).pass, false);
  const failing = {
    note: 'e',
    query: 'x := data.t.p',
    modules: ['package t\np := 1 if true\np := 2 if true'],
  };
  assert.equal(runCase({ ...failing, want_error_code: 'eval_conflict_error' }).pass, true);
  assert.equal(runCase({ ...failing, want_error_code: 'eval_type_error' }).pass, false);
  assert.equal(runCase({ ...failing, want_result: [] }).pass, false);
});

test.run();
