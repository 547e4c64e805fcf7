/** One point of a node's sparkline: the engine's totals over its live instances at `at`. */
export interface NodePoint {
  readonly at: number;
  readonly messagesPerSecond: number;
  readonly lag: number;
}

/** The points of the last `spanMs`, per node, oldest first (in memory only). */
export class NodeHistory {
  readonly #spanMs: number;
  readonly #points = new Map<string, NodePoint[]>();

  constructor(spanMs: number) {
    this.#spanMs = spanMs;
  }

  add(node: string, point: NodePoint): void {
    const points = this.#points.get(node) ?? [];
    points.push(point);
    const from = point.at - this.#spanMs;
    while (points.length > 0 && (points[0] as NodePoint).at < from) points.shift();
    this.#points.set(node, points);
  }

  of(node: string): readonly NodePoint[] {
    return this.#points.get(node) ?? [];
  }
}
