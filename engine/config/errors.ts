/** One problem found in a configuration. `value` is absent when there is nothing to show. */
export interface ConfigIssue {
  path: string;
  rule: string;
  value?: unknown;
}

/** Shown instead of the value of a Secret-typed field. */
export const REDACTED = '<redacted>';

const MAX_VALUE_CHARS = 80;

function formatValue(value: unknown): string {
  if (value === REDACTED) return REDACTED;
  const text = JSON.stringify(value) ?? String(value);
  return text.length > MAX_VALUE_CHARS ? `${text.slice(0, MAX_VALUE_CHARS - 3)}...` : text;
}

/** `path: rule (value)` */
export function formatIssue(issue: ConfigIssue): string {
  const value = 'value' in issue ? ` (${formatValue(issue.value)})` : '';
  return `${issue.path}: ${issue.rule}${value}`;
}

/** Every problem of a configuration at once, so a user fixes them in one pass. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  readonly issues: readonly ConfigIssue[];
  readonly source: string | undefined;

  constructor(issues: readonly ConfigIssue[], source?: string) {
    const count = issues.length === 1 ? '1 problem' : `${issues.length} problems`;
    super(`${source ?? 'configuration'}: ${count}\n${issues.map(formatIssue).join('\n')}`);
    this.issues = issues;
    this.source = source;
  }

  /** One line per issue: `path: rule (value)`. */
  format(): string {
    return this.issues.map(formatIssue).join('\n');
  }
}
