import { fieldOf, type JsonObject } from '../../operators/record/json.ts';
import { readLocal, resolvePath } from './mongo/path.ts';
import { equalityKey } from './mongo/values.ts';
import { elementSet, equalitySet } from './upward.ts';

/**
 * An equality every link of an edge satisfies: a child and its parent link only if their key
 * sets share a key. Stores use it as a hash join (memory indexes, batch matching); the link is
 * still confirmed with `links`.
 *
 * - `$eq`: child keys are every value `{F: {$eq: r}}` matches (null for missing); parent key r.
 * - `$in`: child keys are the elements of the arrays at F; parent key r.
 * - `$contains`: child keys as for `$eq`; parent keys are the elements of the array r.
 */
export interface EqualityPair {
  readonly childPath: string;
  readonly parentPath: string;
  childKeys(child: JsonObject): string[];
  parentKeys(parent: JsonObject): string[];
}

const NULL_KEY = equalityKey(null);

export function equalityPair(
  op: '$eq' | '$in' | '$contains',
  childSegments: readonly string[],
  parentSegments: readonly string[],
): EqualityPair {
  const childSet =
    op === '$in'
      ? (child: JsonObject) => elementSet(resolvePath(child, childSegments))
      : (child: JsonObject) => equalitySet(resolvePath(child, childSegments, true));
  const field = op !== '$in' && childSegments.length === 1 ? (childSegments[0] as string) : null;
  return {
    childPath: `value.${childSegments.join('.')}`,
    parentPath: `value.${parentSegments.join('.')}`,
    childKeys: (child) => {
      // The usual foreign key: one field holding a scalar (or missing, i.e. null) has one key.
      if (field !== null) {
        const value = fieldOf(child, field);
        if (value === undefined) return [NULL_KEY];
        if (value === null || typeof value !== 'object') return [equalityKey(value)];
      }
      return childSet(child).map(equalityKey);
    },
    parentKeys: (parent) => {
      const r = readLocal(parent, parentSegments);
      if (op !== '$contains') return [equalityKey(r)];
      return Array.isArray(r) ? [...new Set(r.map(equalityKey))] : [];
    },
  };
}
