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
