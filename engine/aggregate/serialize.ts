import type { JsonObject } from '../record/json.ts';
import type { Aggregate } from './compute.ts';

/**
 * The JSON text of each record value serialized so far, by identity. A stored value is never
 * mutated (the store contract), and the in-memory store hands out the same object on every
 * lookup, so a record is serialized once however many recomputes include it.
 */
const valueTexts = new WeakMap<JsonObject, string>();
const nameTexts = new Map<string, string>();

/**
 * `JSON.stringify(aggregate)`, byte for byte, built from the memoized texts of its record values:
 * a recompute re-serializes only the records that changed since the last one.
 *
 * @example
 *   aggregateJson({ value: { id: 1 }, dependencies: { orders: [] } }) // '{"value":{"id":1},"dependencies":{"orders":[]}}'
 */
export function aggregateJson(aggregate: Aggregate): string {
  let text = `{"value":${valueText(aggregate.value)},"dependencies":{`;
  let separator = '';
  for (const child of Object.keys(aggregate.dependencies)) {
    const members = aggregate.dependencies[child] as Aggregate[];
    text += `${separator}${nameText(child)}:[`;
    for (let i = 0; i < members.length; i++) {
      if (i > 0) text += ',';
      text += aggregateJson(members[i] as Aggregate);
    }
    text += ']';
    separator = ',';
  }
  return `${text}}}`;
}

function valueText(value: JsonObject): string {
  let text = valueTexts.get(value);
  if (text === undefined) {
    text = JSON.stringify(value);
    valueTexts.set(value, text);
  }
  return text;
}

function nameText(name: string): string {
  let text = nameTexts.get(name);
  if (text === undefined) {
    text = JSON.stringify(name);
    nameTexts.set(name, text);
  }
  return text;
}
