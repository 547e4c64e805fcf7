/** A JSON value as it arrives from a change event. */
export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
export type JsonObject = { [key: string]: JsonValue };

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The field `key` of a record (or any object used as a dictionary), undefined when the object has
 * no such field of its own. A plain `object[key]` would answer Object.prototype's members for
 * names like them (`constructor`, `toString`, `__proto__`), which are ordinary names in user data
 * and configurations.
 */
export function fieldOf<V>(object: Readonly<Record<string, V>>, key: string | number): V | undefined {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

/**
 * How deep a key or value may nest: MongoDB's own limit for the documents that store them. The
 * engine's recursive walks (canonical keys, merging) would overflow the stack on deeper JSON.
 */
export const MAX_JSON_DEPTH = 100;

/**
 * The path to the first array or object nested more than `limit` levels deep in `value`, or null
 * when none is. Iterative, so that it answers for any depth `JSON.parse` accepts: the recursive
 * code that walks a parsed document later (canonical keys, validation) would overflow the stack.
 */
export function pathDeeperThan(value: unknown, limit: number): Array<string | number> | null {
  const stack: Array<{ value: unknown; path: Array<string | number> }> = [{ value, path: [] }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    if (typeof item.value !== 'object' || item.value === null) continue;
    if (item.path.length >= limit) return item.path;
    for (const [key, child] of Object.entries(item.value)) {
      stack.push({ value: child, path: [...item.path, Array.isArray(item.value) ? Number(key) : key] });
    }
  }
  return null;
}
