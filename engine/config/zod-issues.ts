import type { z } from 'zod';
import type { ConfigIssue } from './errors.ts';
import { formatJsonPath, type JsonPath, valueAt } from './json-path.ts';
import { redactValue } from './redact.ts';

type Issue = z.core.$ZodIssue;
type Schema = z.core.$ZodType;

const ARTICLES: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'a boolean',
  object: 'an object',
  array: 'an array',
  tuple: 'an array',
  record: 'an object',
  null: 'null',
};

function sizeRule(
  origin: string,
  relation: 'at least' | 'at most',
  bound: unknown,
  inclusive: boolean,
): string {
  if (origin === 'string') return `must be ${relation} ${bound} characters long`;
  if (origin === 'array') return `must have ${relation} ${bound} items`;
  const operator = relation === 'at least' ? (inclusive ? '>=' : '>') : inclusive ? '<=' : '<';
  return `must be ${operator} ${bound}`;
}

function ruleOf(issue: Issue, present: boolean): string {
  switch (issue.code) {
    case 'invalid_type':
      return present ? `must be ${ARTICLES[issue.expected] ?? issue.expected}` : 'is required';
    case 'too_small':
      return sizeRule(issue.origin, 'at least', issue.minimum, issue.inclusive ?? true);
    case 'too_big':
      return sizeRule(issue.origin, 'at most', issue.maximum, issue.inclusive ?? true);
    case 'invalid_format':
      if (issue.format === 'regex' && 'pattern' in issue) return `must match the pattern ${issue.pattern}`;
      if (issue.format === 'ipv4') return 'must be an IPv4 address';
      return `must be a valid ${issue.format}`;
    case 'invalid_value':
      return issue.values.length === 1
        ? `must be ${JSON.stringify(issue.values[0])}`
        : `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'invalid_union':
      // A discriminated union (Secret) with an unknown `type`.
      if ('options' in issue && Array.isArray(issue.options)) {
        return `must be one of ${issue.options.map((v: unknown) => JSON.stringify(v)).join(', ')}`;
      }
      return issue.message;
    default:
      return issue.message;
  }
}

/**
 * A union branch is the one the user meant when none of its issues is about the value as a whole
 * (wrong type, foreign keys), except a nested union that itself has a plausible branch: then its
 * deeper issues are the precise ones to report.
 */
function isPlausibleBranch(issues: readonly Issue[]): boolean {
  return issues.every(
    (issue) =>
      issue.path.length > 0 || (issue.code === 'invalid_union' && issue.errors.some(isPlausibleBranch)),
  );
}

/** Converts zod issues (paths relative to `base`) into config issues, values redacted. */
function convert(issues: readonly Issue[], base: JsonPath, input: unknown, schema: Schema): ConfigIssue[] {
  return issues.flatMap((issue): ConfigIssue[] => {
    const path = [...base, ...(issue.path as (string | number)[])];
    if (issue.code === 'unrecognized_keys') {
      // No value: a misplaced key may well hold a credential.
      return issue.keys.map((key) => ({ path: formatJsonPath([...path, key]), rule: 'unknown property' }));
    }
    if (issue.code === 'invalid_union' && issue.errors.length > 0) {
      const plausible = issue.errors.filter(isPlausibleBranch);
      if (plausible.length === 1) return convert(plausible[0]!, path, input, schema);
    }
    const value = valueAt(input, path);
    const present = value !== undefined;
    const result: ConfigIssue = { path: formatJsonPath(path), rule: ruleOf(issue, present) };
    if (present) result.value = redactValue(schema, path, value);
    return [result];
  });
}

export function fromZodIssues(issues: readonly Issue[], input: unknown, schema: Schema): ConfigIssue[] {
  return convert(issues, [], input, schema);
}
