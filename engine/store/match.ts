import type { JsonObject } from '../../operators/record/json.ts';
import type { CompiledFilter } from '../filter/index.ts';
import { compareCanonical } from '../record/key.ts';
import type { StoredRecord } from './types.ts';

/**
 * Pairs anchors (parents or children) with candidate records of the other end, exactly: a
 * pair is kept when `links` holds. With an equality on the edge, candidates are grouped by key
 * first so the cost is O(anchors + candidates + matches), not their product.
 * Each list is ordered by `compareCanonical` of `ck`; positions follow `anchors`.
 */
export function matchBatch(
  filter: CompiledFilter,
  direction: 'down' | 'up',
  anchors: readonly JsonObject[],
  candidates: readonly StoredRecord[],
): StoredRecord[][] {
  const links =
    direction === 'down'
      ? (anchor: JsonObject, c: StoredRecord) => filter.links(anchor, c.value)
      : (anchor: JsonObject, c: StoredRecord) => filter.links(c.value, anchor);
  const pair = filter.equalities[0];
  if (!pair) return anchors.map((a) => sortByCk(candidates.filter((c) => links(a, c))));
  const [anchorKeys, candidateKeys] =
    direction === 'down' ? [pair.parentKeys, pair.childKeys] : [pair.childKeys, pair.parentKeys];
  const byKey = new Map<string, StoredRecord[]>();
  for (const c of candidates) {
    for (const k of candidateKeys(c.value)) {
      const list = byKey.get(k);
      if (list) list.push(c);
      else byKey.set(k, [c]);
    }
  }
  return anchors.map((a) => {
    const found = new Map<string, StoredRecord>();
    for (const k of anchorKeys(a)) {
      for (const c of byKey.get(k) ?? []) {
        if (!found.has(c.ck) && (filter.exact || links(a, c))) found.set(c.ck, c);
      }
    }
    return sortByCk([...found.values()]);
  });
}

export function sortByCk(records: StoredRecord[]): StoredRecord[] {
  return records.sort((a, b) => compareCanonical(a.ck, b.ck));
}
