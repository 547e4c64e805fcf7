/**
 * The policies of `OPA_MODULES_DIRECTORY` (package `policies`) and the three ways Rönd asks them:
 * allow (`data.policies.<name>` is true), row filter (partial evaluation with `data.resources`
 * unknown, turned into a MongoDB query) and response filter (the first value of the rule).
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import {
  admitsEveryRow,
  compile,
  type HostBuiltin,
  type Policy,
  toJSON,
  toMongoQuery,
  type Value,
} from '../rego/index.ts';

/**
 * Rönd's `get_header(name, headers)` builtin: the first value of a header, matched without regard
 * to case, or "". Written in Rego (in a form both v0 and v1 parse), as one more module of package
 * `policies`, when the user's policies have that package.
 */
const GET_HEADER_MODULE =
  'package policies\n\nget_header(name, headers) := object.get({lower(k): v | v := headers[k]}, lower(name), [""])[0]\n';
const GET_HEADER_FILE = '<rond builtins>/get_header.rego';
const POLICIES_PACKAGE = /^\s*package\s+policies\s*$/m;

export interface PolicySet {
  readonly files: readonly string[];
  /** `{allowed, value}`: `value` is what a response filter returns (the rule's first value). */
  decide(policyName: string, input: unknown, print?: PrintHook): Promise<Decision>;
  /**
   * The MongoDB query under which the rows pass, `'every row'` when the policy holds without a
   * condition on them (then Rönd sends no filter), or `undefined` when no row can.
   */
  rowFilter(
    policyName: string,
    input: unknown,
    print?: PrintHook,
  ): Promise<Record<string, unknown> | 'every row' | undefined>;
}

/** Receives the lines of the policy's `print(...)` calls. */
export type PrintHook = (line: string) => void;

export type Decision = { readonly allowed: false } | { readonly allowed: true; readonly value: unknown };

const NOT_ALLOWED: Decision = { allowed: false };

/**
 * Every `.rego` file under `dir` (sorted, recursive), compiled together, with the host's
 * `builtins` (Rönd's `find_one`/`find_many`) callable from them.
 */
export async function loadPolicies(dir: string, builtins: Record<string, HostBuiltin>): Promise<PolicySet> {
  const files = (await readdir(dir, { recursive: true })).filter((f) => f.endsWith('.rego')).sort();
  if (files.length === 0) throw new Error(`OPA_MODULES_DIRECTORY: no .rego file in ${dir}`);
  const modules: Record<string, string> = {};
  for (const file of files) modules[file] = await readFile(join(dir, file), 'utf8');
  if (Object.values(modules).some((source) => POLICIES_PACKAGE.test(source))) {
    modules[GET_HEADER_FILE] = GET_HEADER_MODULE;
  }
  const policy = compile(modules, { builtins });
  return policySet(
    policy,
    files.map((f) => relative('.', join(dir, f))),
  );
}

function policySet(policy: Policy, files: readonly string[]): PolicySet {
  return {
    files,
    // The async forms run the lookups of find_one/find_many; without any they evaluate once.
    async decide(policyName, input, print) {
      const [solution] = await policy.evalAsync(`result := ${ruleRef(policyName)}`, { input, print });
      const result = solution?.get('result');
      return result === undefined ? NOT_ALLOWED : decision(result);
    },
    async rowFilter(policyName, input, print) {
      const residual = await policy.partialAsync(ruleRef(policyName), { input, print });
      if (residual.queries.length === 0) return undefined;
      const query = toMongoQuery(residual);
      return admitsEveryRow(query) ? 'every row' : query;
    },
  };
}

/** As Rönd: dots in a policy name become underscores. */
function ruleRef(policyName: string): string {
  return `data.policies.${policyName.replaceAll('.', '_')}`;
}

/** OPA's `Allowed()` (exactly `true`), else Rönd's response-filter reading: a non-empty collection's first value. */
function decision(result: Value): Decision {
  // Exact: BigInts stay BigInts, for `jsonText` to write the response body with all their digits.
  const json = toJSON(result, true);
  if (json === true) return { allowed: true, value: true };
  if (Array.isArray(json) && json.length > 0) return { allowed: true, value: json[0] };
  return NOT_ALLOWED;
}
