import { createHash } from 'node:crypto';
import {
  isJsonObject,
  type JsonObject,
  type JsonValue,
  MAX_JSON_DEPTH,
  pathDeeperThan,
} from '../../operators/record/json.ts';

/**
 * Canonical JSON: object keys sorted recursively (by UTF-16 code unit, like `Array#sort`),
 * no spaces. Two keys are the same record exactly when their canonical forms are equal.
 *
 * @example
 * canonicalJson({ b: 1, a: { d: [2, 1], c: null } }) // '{"a":{"c":null,"d":[2,1]},"b":1}'
 */
export function canonicalJson(value: JsonValue): string {
  // `JSON.stringify` lists keys in property order; where that already is the sorted order at
  // every level (most keys arrive sorted, and every key this engine writes is), the native call
  // gives the canonical text at a fraction of the cost of sorting and concatenating.
  return inSortedOrder(value) ? JSON.stringify(value) : sortedJson(value);
}

function sortedJson(value: JsonValue): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isJsonObject(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k] as JsonValue)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * Whether every object's own keys, in the order `JSON.stringify` lists them, are in `Array#sort`
 * order (UTF-16 code units, which `<` compares). Integer-like keys are listed first in numeric
 * order whatever their insertion, so `{"10":…, "9":…}` is not sorted and takes the slow path.
 */
function inSortedOrder(value: JsonValue): boolean {
  if (typeof value !== 'object' || value === null) return true;
  if (Array.isArray(value)) {
    for (const element of value) if (!inSortedOrder(element)) return false;
    return true;
  }
  const keys = Object.keys(value);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    if (i > 0 && !((keys[i - 1] as string) < key)) return false;
    if (!inSortedOrder(value[key] as JsonValue)) return false;
  }
  return true;
}

/**
 * Orders canonical key strings bytewise in UTF-8, which is the order `engine.md` §4 fixes for
 * dependency arrays. UTF-16 code-unit order agrees with it except between a surrogate (an
 * astral character, 4 UTF-8 bytes) and U+E000..U+FFFF, where UTF-8 puts the astral one last.
 */
export function compareCanonical(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const xSurrogate = x >= 0xd800 && x <= 0xdfff;
    const ySurrogate = y >= 0xd800 && y <= 0xdfff;
    if (xSurrogate !== ySurrogate && x >= 0xe000 !== y >= 0xe000 && x >= 0xd800 && y >= 0xd800) {
      return xSurrogate ? 1 : -1;
    }
    return x - y;
  }
  return a.length - b.length;
}

/** Stable, fixed-size id of a canonical key (SHA-256, base64url), used as MongoDB `__pk`. */
export function keyId(canonicalKey: string): string {
  return createHash('sha256').update(canonicalKey).digest('base64url');
}

/** The key-only output form: base64url, unpadded, of the UTF-8 canonical key JSON. */
export function encodeKeyOnly(canonicalKey: string): string {
  return Buffer.from(canonicalKey, 'utf8').toString('base64url');
}

/** Inverse of {@link encodeKeyOnly}; returns null when the text is not base64url of a JSON object. */
export function decodeKeyOnly(encoded: string): JsonObject | null {
  if (!/^[A-Za-z0-9_-]*$/.test(encoded) || encoded.length % 4 === 1) return null;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8'));
    // No change event carries a deeper key, and canonicalJson's recursion would overflow on one.
    return isJsonObject(parsed) && !pathDeeperThan(parsed, MAX_JSON_DEPTH) ? parsed : null;
  } catch {
    return null;
  }
}

export type { JsonObject, JsonValue };
