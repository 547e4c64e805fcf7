import type { StoredRecord } from '../store/types.ts';
import type { AggregateForm } from './compute.ts';

interface NodeName {
  readonly text: string;
  /** The name as an array index, or -1: JS objects list such keys first, in numeric order. */
  readonly index: number;
}

const names = new Map<string, NodeName>();

/**
 * The JSON-text form of an aggregate: `JSON.stringify` of the object form, byte for byte, built
 * by concatenation (V8 keeps it as a rope until the output is encoded once). Record values use
 * the store's cached text when it has one (`StoredRecord.valueJson`), so a record kept in memory
 * is serialized once however many recomputes include it.
 *
 * @example
 *   const texts = await computeAggregates(store, topology, 'customers', records, jsonForm);
 */
export const jsonForm: AggregateForm<string> = (record, dependencies) => {
  let text = `{"value":${valueJson(record)},"dependencies":{`;
  const ordered = dependencies.some(([child]) => nameOf(child).index >= 0)
    ? inPropertyOrder(dependencies)
    : dependencies;
  for (let d = 0; d < ordered.length; d++) {
    const [child, members] = ordered[d] as readonly [string, string[]];
    text += `${d > 0 ? ',' : ''}${nameOf(child).text}:[`;
    for (let i = 0; i < members.length; i++) text += i > 0 ? `,${members[i]}` : members[i];
    text += ']';
  }
  return `${text}}}`;
};

function valueJson(record: StoredRecord): string {
  return record.valueJson ?? JSON.stringify(record.value);
}

function nameOf(name: string): NodeName {
  let found = names.get(name);
  if (found === undefined) {
    const index = /^(0|[1-9][0-9]*)$/.test(name) && Number(name) < 2 ** 32 - 1 ? Number(name) : -1;
    found = { text: JSON.stringify(name), index };
    names.set(name, found);
  }
  return found;
}

/** The order `JSON.stringify` lists an object's keys in: array indexes ascending, then the rest. */
function inPropertyOrder<T>(
  dependencies: ReadonlyArray<readonly [string, T]>,
): ReadonlyArray<readonly [string, T]> {
  const indexed = dependencies.filter(([child]) => nameOf(child).index >= 0);
  indexed.sort(([a], [b]) => nameOf(a).index - nameOf(b).index);
  return [...indexed, ...dependencies.filter(([child]) => nameOf(child).index < 0)];
}
