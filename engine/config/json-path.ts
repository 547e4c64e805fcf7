/** A location inside the configuration document, as segments. */
export type JsonPath = ReadonlyArray<string | number>;

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `processor.graph.edges[2].filter.$eq[0]`; names that are not identifiers as `["bootstrap.servers"]`. */
export function formatJsonPath(path: JsonPath): string {
  if (path.length === 0) return '(root)';
  let text = '';
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else if (IDENTIFIER.test(segment)) text += text === '' ? segment : `.${segment}`;
    else text += `[${JSON.stringify(segment)}]`;
  }
  return text;
}

/** The value at `path` inside `document`, or undefined when the path leads nowhere. */
export function valueAt(document: unknown, path: JsonPath): unknown {
  let current = document;
  for (const segment of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string | number, unknown>)[segment];
  }
  return current;
}
