import { fieldOf, type JsonValue } from '../../../operators/record/json.ts';
import { isIndexSegment, isJsonObject } from './values.ts';

/** A path that reached no value (MongoDB's "missing", which `$eq: null` matches). */
export const MISSING = Symbol('missing');
export type Candidate = JsonValue | typeof MISSING;

/**
 * The values MongoDB reaches when it resolves a dotted path in a document: a field of an
 * object; on an array, a numeric segment both indexes it and names a field of its object
 * elements, any other segment names a field of its object elements (one level: nested arrays
 * are not entered). A field missing from an object (or an index past the end) is
 * {@link MISSING}; scalar elements contribute nothing.
 *
 * With `expandLeaf` (what `$eq`, `$gt`, `$in`, `$regex` ... see), a leaf array also yields
 * each of its elements, except an array reached by a positional index.
 */
export function resolvePath(
  root: JsonValue | undefined,
  segments: readonly string[],
  expandLeaf = false,
): Candidate[] {
  const out: Candidate[] = [];
  walk(root, segments, 0, expandLeaf, false, out);
  return out;
}

function walk(
  current: JsonValue | undefined,
  segments: readonly string[],
  i: number,
  expandLeaf: boolean,
  positional: boolean,
  out: Candidate[],
): void {
  if (current === undefined) {
    out.push(MISSING);
    return;
  }
  if (i === segments.length) {
    out.push(current);
    if (expandLeaf && !positional && Array.isArray(current)) out.push(...current);
    return;
  }
  const segment = segments[i]!;
  if (isJsonObject(current)) {
    walk(fieldOf(current, segment), segments, i + 1, expandLeaf, false, out);
  } else if (Array.isArray(current)) {
    if (isIndexSegment(segment)) walk(current[Number(segment)], segments, i + 1, expandLeaf, true, out);
    for (const element of current) {
      if (isJsonObject(element)) walk(fieldOf(element, segment), segments, i + 1, expandLeaf, false, out);
    }
  } else {
    out.push(MISSING);
  }
}

/**
 * The value of a `local` path in a parent record, read strictly (no array traversal):
 * a field of an object, an element of an array by numeric segment; missing becomes `null`
 * (engine.md §3).
 */
export function readLocal(root: JsonValue, segments: readonly string[]): JsonValue {
  let current: JsonValue | undefined = root;
  for (const segment of segments) {
    if (isJsonObject(current)) current = fieldOf(current, segment);
    else if (Array.isArray(current) && isIndexSegment(segment)) current = current[Number(segment)];
    else return null;
    if (current === undefined) return null;
  }
  return current;
}
