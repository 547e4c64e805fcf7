/**
 * Property: the configuration loader and `validate` never crash. Any text is either a valid
 * configuration whose graph builds, or a `ConfigError` whose every issue names a JSON path and a
 * rule. Inputs: any text, the examples with random text edits, and the examples with a random
 * subtree replaced by random JSON or removed (schema-shaped input reaches the cross-checks).
 */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { ConfigError } from '../../engine/config/errors.ts';
import { parseConfig } from '../../engine/config/index.ts';
import { MAX_CONFIG_DEPTH } from '../../engine/config/load.ts';
import { buildGraph } from '../../engine/graph/index.ts';
import { test } from '../support/suite.ts';
import { anyText, checkProperty, mutated } from './property.ts';

const EXAMPLES = ['all-operators', 'single-view', 'tenant-providers', 'two-parents', 'auth'].map((name) =>
  readFileSync(`examples/${name}/config.json`, 'utf8'),
);

function validOrNamedIssues(text: string): void {
  try {
    const { config } = parseConfig(text);
    buildGraph(config.processor.graph);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw new Error(`not a ConfigError: ${String(error)}`);
    assert.ok(error.issues.length > 0, 'a ConfigError without issues');
    for (const issue of error.issues) {
      assert.ok(issue.path.length > 0, `an issue without a path: ${issue.rule}`);
      assert.ok(issue.rule.length > 0, `an issue without a rule at ${issue.path}`);
    }
  }
}

type Path = Array<string | number>;

function pathsOf(value: unknown, path: Path = []): Path[] {
  if (typeof value !== 'object' || value === null) return [path];
  const children = Object.entries(value).flatMap(([key, child]) =>
    pathsOf(child, [...path, Array.isArray(value) ? Number(key) : key]),
  );
  return [path, ...children];
}

/** `document` with the value at `path` replaced (or removed when `replacement` is undefined). */
function replaced(document: unknown, path: Path, replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const copy = structuredClone(document) as Record<string | number, unknown>;
  let parent = copy;
  for (const segment of path.slice(0, -1)) parent = parent[segment] as Record<string | number, unknown>;
  const last = path[path.length - 1]!;
  if (replacement === undefined && !Array.isArray(parent)) delete parent[last];
  else parent[last] = replacement;
  return copy;
}

const structurallyMutated = fc
  .tuple(
    fc.constantFrom(...EXAMPLES.map((text) => JSON.parse(text) as unknown)),
    fc.nat(),
    fc.option(fc.jsonValue({ maxDepth: 3 }), { nil: undefined }),
  )
  .map(([document, at, replacement]) => {
    const paths = pathsOf(document);
    return JSON.stringify(replaced(document, paths[at % paths.length]!, replacement)) ?? '';
  });

test('any text: valid, or every issue names a path and a rule', () => {
  checkProperty('config: any text', 2000, anyText(), validOrNamedIssues);
});

test('examples with text edits: valid, or every issue names a path and a rule', () => {
  checkProperty('config: mutated text', 1000, mutated(EXAMPLES), validOrNamedIssues);
});

test('examples with a subtree replaced or removed: valid, or every issue names a path and a rule', () => {
  checkProperty('config: mutated structure', 500, structurallyMutated, validOrNamedIssues);
});

/** A filter of the two-parents example nested `depth` times through `$not`, `$and`, `$or`. */
const deepFilter = fc
  .tuple(fc.array(fc.constantFrom('$not', '$and', '$or'), { minLength: 1, maxLength: 4 }), fc.nat(2000))
  .map(([kinds, depth]) => {
    let filter: unknown = { $eq: [{ foreign: ['a'] }, 1] };
    for (let i = 0; i < depth; i++) {
      const kind = kinds[i % kinds.length]!;
      filter = { [kind]: kind === '$not' ? filter : [filter] };
    }
    const document = JSON.parse(EXAMPLES[3]!) as {
      processor: { graph: { edges: Array<{ filter?: unknown }> } };
    };
    document.processor.graph.edges[0]!.filter = filter;
    return JSON.stringify(document);
  });

test('deeply nested filters: valid, or an issue naming where the nesting passed the limit', () => {
  checkProperty('config: deep filters', 100, deepFilter, validOrNamedIssues);
});

// Found by fuzzing: a document nested 20 000 deep overflowed the stack in the checks after
// JSON.parse (a RangeError, no issue list).
test('regression: deep nesting is an issue at the path where it passes the limit', () => {
  const deep = `{"a":${'['.repeat(20_000)}${']'.repeat(20_000)}}`;
  assert.throws(
    () => parseConfig(deep),
    (error: unknown) =>
      error instanceof ConfigError &&
      error.issues.length === 1 &&
      error.issues[0]!.path === `a${'[0]'.repeat(MAX_CONFIG_DEPTH - 1)}` &&
      error.issues[0]!.rule === `nested deeper than ${MAX_CONFIG_DEPTH} levels`,
  );
  validOrNamedIssues(`{"a":${'['.repeat(20_000)}`);
});

test.run();
