/** A JSON value as it arrives from a change event. */
export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
export type JsonObject = { [key: string]: JsonValue };

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The field `key` of a record, undefined when the record has no such field of its own. A plain
 * `object[key]` would answer Object.prototype's members for fields named like them
 * (`constructor`, `toString`, `__proto__`), which are ordinary names in user data.
 */
export function fieldOf(object: JsonObject, key: string): JsonValue | undefined {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}
