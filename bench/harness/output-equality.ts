/**
 * Whether two targets did the same work: the final state of their output topics, per head key.
 * The final state of a key is its last message: a read (`op` r, c or u) leaves its `after`
 * aggregate, a delete (`op` d) or a tombstone leaves nothing (the engine writes d then a tombstone,
 * the Kafka Streams peer only the tombstone). Aggregates compare with the records' own values
 * exactly and the children under `dependencies` as multisets, at every level (the engine orders
 * them by key, the peer does not). Used by `bench/kafka.ts` on the peer's runs and by
 * `test/bench/kafka-streams-peer.test.ts`.
 *
 * @example
 *   const engine = await outputFinalState(broker, 'engine.output', 'reader-1');
 *   const peer = await outputFinalState(broker, 'peer.output', 'reader-2');
 *   console.log(formatComparison(compareFinalStates(engine, peer, ['engine', 'peer'])));
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { canonicalJson } from '../../engine/record/key.ts';
import type { Broker, ConsumedMessage } from '../../operators/broker/types.ts';
import { isJsonObject, type JsonValue } from '../../operators/record/json.ts';
import { readOutput } from './kafka-output.ts';

/** Head key (canonical JSON) → its last aggregate in normal form (`normalAggregate`). */
export type FinalState = Map<string, string>;

/** Folds output messages, in topic order per partition, into the final state per key. */
export class FinalStateCollector {
  readonly state: FinalState = new Map();

  add(message: ConsumedMessage): void {
    const text = message.key?.toString('utf8') ?? '';
    const key = keyOf(text);
    const value = message.value;
    if (!value || value.length === 0) {
      this.state.delete(key);
      return;
    }
    const parsed = JSON.parse(value.toString('utf8')) as { op?: string; after?: JsonValue };
    if (parsed.op === 'd') this.state.delete(key);
    else this.state.set(key, normalAggregate(parsed.after ?? null));
  }
}

function keyOf(text: string): string {
  try {
    return canonicalJson(JSON.parse(text) as JsonValue);
  } catch {
    return text;
  }
}

/**
 * An aggregate `{value, dependencies: {node: [child aggregates]}}` as canonical JSON with every
 * `dependencies` list sorted by its elements' own normal form: equal exactly when the two
 * aggregates are equal with children compared as multisets. Anything else: canonical JSON.
 */
export function normalAggregate(aggregate: JsonValue): string {
  return canonicalJson(normalized(aggregate));
}

function normalized(aggregate: JsonValue): JsonValue {
  if (!isJsonObject(aggregate) || !isJsonObject(aggregate.dependencies ?? null)) return aggregate;
  const dependencies: Record<string, JsonValue> = {};
  for (const [node, children] of Object.entries(aggregate.dependencies as Record<string, JsonValue>))
    dependencies[node] = Array.isArray(children)
      ? children
          .map((child) => {
            const normal = normalized(child);
            return { normal, text: canonicalJson(normal) };
          })
          .sort((p, q) => (p.text < q.text ? -1 : p.text > q.text ? 1 : 0))
          .map((child) => child.normal)
      : children;
  return { ...aggregate, dependencies };
}

/** A whole output topic's final state, read with a fresh consumer group. */
export async function outputFinalState(broker: Broker, topic: string, groupId: string): Promise<FinalState> {
  const collector = new FinalStateCollector();
  await readOutput(broker, topic, groupId, (m) => collector.add(m));
  return collector.state;
}

export function writeFinalState(file: string, state: FinalState): void {
  writeFileSync(file, JSON.stringify([...state]));
}

export function readFinalState(file: string): FinalState {
  return new Map(JSON.parse(readFileSync(file, 'utf8')) as [string, string][]);
}

export interface Comparison {
  readonly equal: boolean;
  /** Keys present in either state. */
  readonly keys: number;
  /** How many keys differ (missing on one side, or a different aggregate). */
  readonly differing: number;
  /** The first differences, one readable line each. */
  readonly mismatches: readonly string[];
}

export function compareFinalStates(
  a: FinalState,
  b: FinalState,
  names: readonly [string, string] = ['a', 'b'],
  limit = 5,
): Comparison {
  const keys = [...new Set([...a.keys(), ...b.keys()])].sort();
  const mismatches: string[] = [];
  let differing = 0;
  for (const key of keys) {
    const [x, y] = [a.get(key), b.get(key)];
    if (x === y) continue;
    differing++;
    if (mismatches.length >= limit) continue;
    if (x === undefined || y === undefined) {
      const [has, lacks] = x === undefined ? [names[1], names[0]] : [names[0], names[1]];
      mismatches.push(`${key}: only in ${has} (${short(x ?? y ?? '')}), absent in ${lacks}`);
    } else {
      mismatches.push(`${key}: ${difference(JSON.parse(x), JSON.parse(y), 'after', names)}`);
    }
  }
  return { equal: differing === 0, keys: keys.length, differing, mismatches };
}

/** `equal: N keys`, or how many keys differ and the first differences. */
export function formatComparison(comparison: Comparison): string {
  if (comparison.equal) return `equal: ${comparison.keys.toLocaleString('en-US')} keys`;
  return [
    `NOT equal: ${comparison.differing} of ${comparison.keys} keys differ; the first:`,
    ...comparison.mismatches.map((m) => `  ${m}`),
  ].join('\n');
}

/** Where two normal forms first differ, as `path: what`. Lists are sorted already (multisets). */
function difference(x: JsonValue, y: JsonValue, path: string, names: readonly [string, string]): string {
  if (Array.isArray(x) && Array.isArray(y)) {
    const onlyIn = (p: JsonValue[], q: JsonValue[]) => {
      const rest = q.map((e) => canonicalJson(e));
      return p.filter((e) => {
        const at = rest.indexOf(canonicalJson(e));
        if (at < 0) return true;
        rest.splice(at, 1);
        return false;
      });
    };
    const [onlyX, onlyY] = [onlyIn(x, y), onlyIn(y, x)];
    if (onlyX.length === 1 && onlyY.length === 1)
      return difference(onlyX[0] as JsonValue, onlyY[0] as JsonValue, `${path}[${idOf(onlyX[0])}]`, names);
    const list = (e: JsonValue[]) =>
      e.length === 0 ? 'nothing' : `${e.length}: ${short(JSON.stringify(e[0]))}${e.length > 1 ? ', …' : ''}`;
    return `${path}: ${x.length} vs ${y.length} elements; only in ${names[0]}: ${list(onlyX)}; only in ${names[1]}: ${list(onlyY)}`;
  }
  if (isJsonObject(x) && isJsonObject(y)) {
    for (const k of [...new Set([...Object.keys(x), ...Object.keys(y)])].sort()) {
      if (!(k in y)) return `${path}.${k}: only in ${names[0]} (${short(JSON.stringify(x[k]))})`;
      if (!(k in x)) return `${path}.${k}: only in ${names[1]} (${short(JSON.stringify(y[k]))})`;
      if (canonicalJson(x[k] as JsonValue) !== canonicalJson(y[k] as JsonValue))
        return difference(x[k] as JsonValue, y[k] as JsonValue, `${path}.${k}`, names);
    }
  }
  return `${path}: ${names[0]} ${short(JSON.stringify(x))}, ${names[1]} ${short(JSON.stringify(y))}`;
}

/** A child aggregate's record id, when it has one (`value.id`), else `~`. */
function idOf(element: JsonValue | undefined): string {
  const value = isJsonObject(element ?? null) ? (element as { value?: JsonValue }).value : undefined;
  const id = isJsonObject(value ?? null) ? (value as { id?: JsonValue }).id : undefined;
  return id === undefined ? '~' : `id ${JSON.stringify(id)}`;
}

function short(text: string, max = 160): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
