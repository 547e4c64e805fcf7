/**
 * Reads the field `key` of a secret file. A file whose content starts with `{` is a JSON object
 * and `key` names a top-level field (string, number or boolean); any other file is dotenv-style,
 * `key` naming a `KEY=value` line (`export ` prefix, blank lines and `#` comments allowed, one
 * pair of surrounding quotes removed). Returns undefined when the key is absent; throws a plain
 * Error (no content quoted) when the file is not what it claims to be.
 */
export function readFileKey(content: string, key: string): string | undefined {
  return content.trimStart().startsWith('{') ? readJsonKey(content, key) : readDotenvKey(content, key);
}

function readJsonKey(content: string, key: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(content);
  } catch {
    throw new Error('is not valid JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new Error('is not a JSON object');
  }
  if (!Object.hasOwn(parsed, key)) return undefined;
  const value = (parsed as Record<string, unknown>)[key];
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
    return String(value);
  throw new Error(`field ${JSON.stringify(key)} must be a string, number or boolean`);
}

const DOTENV_LINE = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*=(.*)$/;

function unquote(value: string): string {
  const trimmed = value.trim();
  const quote = trimmed[0];
  if (trimmed.length >= 2 && (quote === '"' || quote === "'") && trimmed.endsWith(quote))
    return trimmed.slice(1, -1);
  return trimmed;
}

function readDotenvKey(content: string, key: string): string | undefined {
  let found: string | undefined;
  for (const line of content.split(/\r?\n/)) {
    const match = DOTENV_LINE.exec(line);
    // The last assignment wins, as when the file is sourced by a shell.
    if (match && match[1] === key) found = unquote(match[2]!);
  }
  return found;
}
