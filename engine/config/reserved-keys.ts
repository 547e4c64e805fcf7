import type { ConfigIssue } from './errors.ts';
import { formatJsonPath, type JsonPath } from './json-path.ts';

const RESERVED = '__proto__';

/**
 * Keys named `__proto__`, wherever they are in the document. The schema's records drop them
 * without a word (zod's guard against prototype pollution), so a node or connection of that
 * name would vanish and its references fail with a misleading message.
 */
export function reservedKeyIssues(document: unknown): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const visit = (value: unknown, path: JsonPath) => {
    if (Array.isArray(value)) {
      for (const [index, element] of value.entries()) visit(element, [...path, index]);
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, child] of Object.entries(value)) {
        if (key === RESERVED) {
          issues.push({
            path: formatJsonPath([...path, key]),
            rule: `"${RESERVED}" is reserved: choose another name`,
          });
        }
        visit(child, [...path, key]);
      }
    }
  };
  visit(document, []);
  return issues;
}
