import type { RenderedAggregate } from './serialize.ts';

/**
 * The last rendered aggregate per head key, for `renderAggregate` to reuse the subtrees that did
 * not change. It holds what an engine instance rendered itself; nothing in it is trusted: a
 * subtree is reused only when its record objects are the ones the store hands out now (see
 * `Store.immutableRecords`), so a change by another instance, a crash or a retried batch can only
 * cause a miss, never a stale output.
 *
 * Bounded: past `maxPerHead` keys of one head node the least recently rendered key of the head node is dropped (a miss renders in full).
 * On the in-memory store the text is the very string remembered as emitted, so an entry adds its
 * spans only.
 */
export class RenderCache {
  readonly #maxPerHead: number;
  /** Per head node, by ck; a Map iterates in insertion order, so its first key is the oldest. */
  readonly #heads = new Map<string, Map<string, RenderedAggregate>>();

  constructor(maxPerHead: number) {
    this.#maxPerHead = maxPerHead;
  }

  get(head: string, ck: string): RenderedAggregate | undefined {
    return this.#heads.get(head)?.get(ck);
  }

  set(head: string, ck: string, rendered: RenderedAggregate): void {
    let entries = this.#heads.get(head);
    if (entries === undefined) {
      entries = new Map();
      this.#heads.set(head, entries);
    }
    entries.delete(ck); // re-inserted last: the most recent
    entries.set(ck, rendered);
    if (entries.size > this.#maxPerHead) entries.delete(entries.keys().next().value as string);
  }

  forget(head: string, ck: string): void {
    this.#heads.get(head)?.delete(ck);
  }

  /** Keys held for `head`. */
  size(head: string): number {
    return this.#heads.get(head)?.size ?? 0;
  }
}
