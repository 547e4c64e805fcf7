import { isJsonObject, type JsonValue } from '../../../operators/record/json.ts';
import { compareCanonical } from '../../record/key.ts';

/**
 * MongoDB's value model for JSON values: type brackets, BSON ordering and equality.
 * A number never equals or orders against a string; objects compare field by field in order.
 */

/** BSON canonical type order (null < numbers < strings < objects < arrays < booleans). */
export function typeRank(value: JsonValue): number {
  if (value === null) return 1;
  switch (typeof value) {
    case 'number':
      return 2;
    case 'string':
      return 3;
    case 'boolean':
      return 8;
    default:
      return Array.isArray(value) ? 5 : 4;
  }
}

/** Total BSON order; strings compare bytewise in UTF-8 (MongoDB's simple collation). */
export function compareBson(a: JsonValue, b: JsonValue): number {
  const ra = typeRank(a);
  const rb = typeRank(b);
  if (ra !== rb) return ra - rb;
  switch (ra) {
    case 1:
      return 0;
    case 2:
      return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
    case 3:
      return Math.sign(compareCanonical(a as string, b as string));
    case 8:
      return Number(a) - Number(b);
    case 5:
      return compareArrays(a as JsonValue[], b as JsonValue[]);
    default:
      return compareObjects(a as Record<string, JsonValue>, b as Record<string, JsonValue>);
  }
}

function compareArrays(a: JsonValue[], b: JsonValue[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const c = compareBson(a[i] as JsonValue, b[i] as JsonValue);
    if (c !== 0) return c;
  }
  return Math.sign(a.length - b.length);
}

// BSON documents compare element by element: value type first, then field name, then value.
function compareObjects(a: Record<string, JsonValue>, b: Record<string, JsonValue>): number {
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  const n = Math.min(ka.length, kb.length);
  for (let i = 0; i < n; i++) {
    const va = a[ka[i]!] as JsonValue;
    const vb = b[kb[i]!] as JsonValue;
    const byType = typeRank(va) - typeRank(vb);
    if (byType !== 0) return Math.sign(byType);
    const byName = compareCanonical(ka[i]!, kb[i]!);
    if (byName !== 0) return Math.sign(byName);
    const byValue = compareBson(va, vb);
    if (byValue !== 0) return byValue;
  }
  return Math.sign(ka.length - kb.length);
}

export function bsonEqual(a: JsonValue, b: JsonValue): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  return compareBson(a, b) === 0;
}

/**
 * A string equal for exactly the values MongoDB finds equal (5 and 5.0 agree; field order
 * counts), used as a hash key.
 */
export function equalityKey(value: JsonValue): string {
  // A finite number's JSON text is its string form, which costs a fraction of JSON.stringify;
  // numbers are most keys (ids and foreign keys).
  return typeof value === 'number' && Number.isFinite(value) ? String(value) : JSON.stringify(value);
}

export function isIndexSegment(segment: string): boolean {
  return /^(0|[1-9][0-9]*)$/.test(segment);
}

export { isJsonObject };
