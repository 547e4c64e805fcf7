/**
 * Rego values: null, boolean, number, string, array, object, set. Objects and sets are keyed by a
 * canonical string of each value so that structurally equal values are one key, as in OPA.
 * Numbers are JS numbers, except integer literals beyond 2^53, which are BigInts so that they
 * compare, print and key exactly; arithmetic on them and non-integer decimals are not exact.
 */
export type Value = null | boolean | number | bigint | string | Value[] | RegoObject | RegoSet;

export class RegoSet {
  readonly items = new Map<string, Value>();
  constructor(values: Iterable<Value> = []) {
    for (const v of values) this.add(v);
  }
  add(v: Value): void {
    this.items.set(mapKey(v), v);
  }
  has(v: Value): boolean {
    return this.items.has(mapKey(v));
  }
  get size(): number {
    return this.items.size;
  }
  values(): Value[] {
    return [...this.items.values()];
  }
  sorted(): Value[] {
    return this.values().sort(compare);
  }
}

export class RegoObject {
  private map: Map<string, [Value, Value]> | undefined;
  /**
   * A JSON object not converted yet (see `fromJSON`): a policy reads a few fields of a large
   * input, so fields are converted when read, and the whole object only when iterated or changed.
   */
  private json: Record<string, unknown> | undefined;
  /** Fields of `json` already converted by `get`. */
  private converted: Map<string, Value> | undefined;

  /** `json`: the object is that JSON object, its fields converted on first read (`lazy`). */
  constructor(pairs: Iterable<[Value, Value]> = [], json?: Record<string, unknown>) {
    if (json) {
      this.json = json;
      return;
    }
    this.map = new Map();
    for (const [k, v] of pairs) this.set(k, v);
  }

  /** An object over a JSON object whose fields are converted on first read. */
  static lazy(json: Record<string, unknown>): RegoObject {
    return new RegoObject([], json);
  }

  get entries(): Map<string, [Value, Value]> {
    return this.map ?? this.materialize();
  }
  set(k: Value, v: Value): void {
    this.entries.set(mapKey(k), [k, v]);
  }
  get(k: Value): Value | undefined {
    if (this.map) return this.map.get(mapKey(k))?.[1];
    if (typeof k !== 'string' || !Object.hasOwn(this.json!, k)) return undefined;
    const raw = this.json![k];
    // Scalars are their own value: only arrays and objects are converted, and kept.
    if (typeof raw !== 'object') return raw === undefined ? null : (raw as Value);
    this.converted ??= new Map();
    let v = this.converted.get(k);
    if (v === undefined) {
      v = fromJSON(raw);
      this.converted.set(k, v);
    }
    return v;
  }
  has(k: Value): boolean {
    return this.get(k) !== undefined;
  }
  delete(k: Value): void {
    this.entries.delete(mapKey(k));
  }
  get size(): number {
    return this.map ? this.map.size : Object.keys(this.json!).length;
  }
  keys(): Value[] {
    return [...this.entries.values()].map((e) => e[0]);
  }
  pairs(): [Value, Value][] {
    return [...this.entries.values()];
  }
  sortedPairs(): [Value, Value][] {
    return this.pairs().sort((a, b) => compare(a[0], b[0]));
  }

  /**
   * The JSON object behind a lazy object not materialized yet, else undefined. Fields read so far
   * were converted from it and values never change in place, so it is still the object's content.
   */
  sourceJSON(): Record<string, unknown> | undefined {
    return this.json;
  }

  private materialize(): Map<string, [Value, Value]> {
    const map = new Map<string, [Value, Value]>();
    for (const [k, raw] of Object.entries(this.json!)) {
      map.set(mapKey(k), [k, this.converted?.get(k) ?? fromJSON(raw)]);
    }
    this.map = map;
    this.json = undefined;
    this.converted = undefined;
    return map;
  }
}

export type TypeName = 'null' | 'boolean' | 'number' | 'string' | 'array' | 'object' | 'set';

export function typeName(v: Value): TypeName {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (v instanceof RegoObject) return 'object';
  if (v instanceof RegoSet) return 'set';
  if (typeof v === 'bigint') return 'number';
  return typeof v as 'boolean' | 'number' | 'string';
}

const typeRank: Record<TypeName, number> = {
  null: 0,
  boolean: 1,
  number: 2,
  string: 3,
  array: 4,
  object: 5,
  set: 6,
};

/**
 * The key of a member of a set or object: strings, the common case, need no escaping because no
 * `keyOf` result starts with `s`.
 */
function mapKey(v: Value): string {
  return typeof v === 'string' ? `s${v}` : keyOf(v);
}

/** A string that is equal for equal values and different otherwise (1 and 1.0 share one key). */
export function keyOf(v: Value): string {
  if (v === null) return 'n';
  switch (typeof v) {
    case 'boolean':
      return v ? 't' : 'f';
    case 'number':
      // Integers beyond 2^53 are keyed by their digits, like the BigInts of the same value.
      return Number.isInteger(v) && !Number.isSafeInteger(v)
        ? `#${BigInt(v)}`
        : `#${Object.is(v, -0) ? 0 : v}`;
    case 'bigint':
      return `#${v}`;
    case 'string':
      return JSON.stringify(v);
  }
  if (Array.isArray(v)) return `[${v.map(keyOf).join(',')}]`;
  if (v instanceof RegoObject) {
    return `{${v
      .pairs()
      .map(([k, val]) => `${keyOf(k)}:${keyOf(val)}`)
      .sort()
      .join(',')}}`;
  }
  return `<${v.values().map(keyOf).sort().join(',')}>`;
}

/** OPA's total order: by type rank, then by value (arrays, objects and sets element-wise). */
export function compare(a: Value, b: Value): number {
  const ta = typeName(a);
  const tb = typeName(b);
  if (ta !== tb) return typeRank[ta] - typeRank[tb];
  switch (ta) {
    case 'null':
      return 0;
    case 'boolean':
      return (a ? 1 : 0) - (b ? 1 : 0);
    case 'number':
      // Relational operators compare a BigInt and a number exactly.
      return (a as number | bigint) < (b as number | bigint)
        ? -1
        : (a as number | bigint) > (b as number | bigint)
          ? 1
          : 0;
    case 'string':
      return (a as string) < (b as string) ? -1 : (a as string) > (b as string) ? 1 : 0;
    case 'array':
      return compareLists(a as Value[], b as Value[]);
    case 'set':
      return compareLists((a as RegoSet).sorted(), (b as RegoSet).sorted());
    case 'object': {
      const pa = (a as RegoObject).sortedPairs();
      const pb = (b as RegoObject).sortedPairs();
      for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
        const c = compare(pa[i]![0], pb[i]![0]) || compare(pa[i]![1], pb[i]![1]);
        if (c !== 0) return c;
      }
      return pa.length - pb.length;
    }
  }
}

function compareLists(a: Value[], b: Value[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const c = compare(a[i]!, b[i]!);
    if (c !== 0) return c;
  }
  return a.length - b.length;
}

export function equal(a: Value, b: Value): boolean {
  if (a === b) return true;
  const t = typeName(a);
  if (t !== typeName(b) || t === 'null' || t === 'boolean' || t === 'string') return false;
  if (t === 'number') return compare(a, b) === 0;
  return keyOf(a) === keyOf(b);
}

/** JSON (as parsed by JSON.parse or a YAML reader) to a Rego value. */
export function fromJSON(j: unknown): Value {
  if (j === null || j === undefined) return null;
  if (Array.isArray(j)) return j.map(fromJSON);
  if (typeof j === 'object') return RegoObject.lazy(j as Record<string, unknown>);
  return j as boolean | number | string;
}

/**
 * A Rego value as JSON: sets become sorted arrays, object keys are serialized to strings (as
 * {@link jsonText} writes them). BigInts become doubles (rounded), for JS callers that take plain
 * JSON; with `exact`, they stay BigInts, for {@link jsonText} to print, as {@link toJSONText} does.
 */
export function toJSON(v: Value, exact = false): unknown {
  if (typeof v === 'bigint') return exact ? v : Number(v);
  if (Array.isArray(v)) return v.map((x) => toJSON(x, exact));
  if (v instanceof RegoSet) return v.sorted().map((x) => toJSON(x, exact));
  if (v instanceof RegoObject) {
    const json = v.sourceJSON();
    if (json) return sortedJSON(json);
    const out: Record<string, unknown> = {};
    for (const [k, val] of v.sortedPairs())
      out[typeof k === 'string' ? k : toJSONText(k)] = toJSON(val, exact);
    return out;
  }
  return v;
}

/** A Rego value as JSON text, as OPA prints it: every integer with all its digits. */
export function toJSONText(v: Value): string {
  return jsonText(toJSON(v, true));
}

/**
 * JSON text of a JSON value that may hold BigInts: the one writer of the JSON text that leaves
 * the engine (`json.marshal`, response bodies, row-filter headers). As `JSON.stringify`, except
 * that integers print with all their digits, as OPA's arbitrary-precision JSON numbers do: a
 * BigInt, and a double beyond 2^53 (`2^70` is `1180591620717411303424`, not `1.18…e+21`).
 */
export function jsonText(j: unknown, indent = 0): string {
  // Most values hold no such integer: the native writer then gives the same text, faster.
  return hasBigInteger(j) ? writeJSON(j, ' '.repeat(indent), '\n') : JSON.stringify(j, null, indent);
}

function isBigInteger(n: unknown): boolean {
  return typeof n === 'bigint' || (typeof n === 'number' && Number.isInteger(n) && !Number.isSafeInteger(n));
}

function hasBigInteger(j: unknown): boolean {
  if (j === null || typeof j !== 'object') return isBigInteger(j);
  if (Array.isArray(j)) return j.some(hasBigInteger);
  for (const key in j) if (hasBigInteger((j as Record<string, unknown>)[key])) return true;
  return false;
}

/**
 * `JSON.stringify(j, null, indent.length)` of plain JSON (no `toJSON` methods, no cycles), with
 * {@link isBigInteger} digits; `newline` is the line break plus the current depth's indentation.
 */
function writeJSON(j: unknown, indent: string, newline: string): string {
  if (isBigInteger(j)) return BigInt(j as number | bigint).toString();
  if (j === null || typeof j !== 'object') return JSON.stringify(j) ?? 'null';
  const inner = indent ? newline + indent : '';
  const items = Array.isArray(j)
    ? j.map((item) => writeJSON(item, indent, inner))
    : Object.entries(j)
        .filter(([, val]) => val !== undefined && typeof val !== 'function' && typeof val !== 'symbol')
        .map(([key, val]) => `${JSON.stringify(key)}:${indent ? ' ' : ''}${writeJSON(val, indent, inner)}`);
  const [open, close] = Array.isArray(j) ? ['[', ']'] : ['{', '}'];
  if (items.length === 0) return open + close;
  return indent
    ? `${open}${inner}${items.join(`,${inner}`)}${newline}${close}`
    : `${open}${items.join(',')}${close}`;
}

/** A JSON value with its object keys sorted, as `toJSON` gives it (undefined fields are null). */
function sortedJSON(j: unknown): unknown {
  if (j === null || j === undefined) return null;
  if (Array.isArray(j)) return j.map(sortedJSON);
  if (typeof j !== 'object') return j;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(j).sort()) out[key] = sortedJSON((j as Record<string, unknown>)[key]);
  return out;
}

/** Rego's textual form of a value, as printed in error messages and by `sprintf("%v")`. */
export function formatValue(v: Value): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number') return formatNumber(v);
  if (typeof v === 'bigint') return String(v);
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(formatValue).join(', ')}]`;
  if (v instanceof RegoSet) return v.size === 0 ? 'set()' : `{${v.sorted().map(formatValue).join(', ')}}`;
  return `{${v
    .sortedPairs()
    .map(([k, val]) => `${formatValue(k)}: ${formatValue(val)}`)
    .join(', ')}}`;
}

function formatNumber(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) >= 1e21) return BigInt(n).toString();
  return String(n);
}
